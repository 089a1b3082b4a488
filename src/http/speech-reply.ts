import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { withKnownWavLength } from '../audio/encoders/index.ts';
import { AppError } from '../errors.ts';
import { errorEnvelope } from './error-body.ts';
import { DEFAULT_SPEECH_FORMAT, type MarkTiming, type SpeakBody, type WordTiming } from '../schemas/speech.ts';
import type { SpeechEndpoint } from '../metrics/metrics.ts';
import type { Speech, SpeechCaller, SpeechInput } from '../speech/speech-service.ts';
import { requireScope } from './plugins/auth.ts';
import { keyIdOf, type Principal } from './types.ts';

/** What every HTTP speech route shares: a caller (a key with the speech scope, or a same-origin session) within the /v1 rate limit. */
/** A `/v1/speak` body (with-timestamps takes the same) as the speech service's input. */
export function speakInput(body: SpeakBody, door: SpeechEndpoint, download: boolean): SpeechInput {
  const { text, text_type, voice_id, speed, format, sample_rate, lexicons } = body;
  return {
    text,
    textType: text_type,
    voiceId: voice_id,
    speed,
    format: format ?? DEFAULT_SPEECH_FORMAT,
    sampleRate: sample_rate,
    door,
    download,
    lexicons,
  };
}

export const speechRouteOptions = { preHandler: requireScope('speech'), config: { rateLimit: 'api' } } as const;

/** Who a speech request is counted for (the door has already refused anonymous requests). */
export function speechCaller(principal: Principal | null): SpeechCaller {
  if (!principal) throw new AppError('unauthorized');
  return { userId: principal.userId, keyId: keyIdOf(principal) };
}

/** Aborts when the client hangs up before the answer is complete, which cancels the synthesis in the worker. */
export function hangUpSignal(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}

/**
 * How long a client may take nothing of a streamed answer before it is cut, as the WebSocket does: a reply it
 * never reads holds a synthesis slot (the worker pauses when its audio is not taken), which others wait for.
 */
export const WRITE_STALL_MS = 10_000;
const STALL_CHECK_MS = 500;

/**
 * Destroys the response once its writes have been held back (the socket's buffers full) for `stallMs` on end, so
 * the hang-up aborts the synthesis and frees its slot. A client reading slowly but steadily never trips it.
 */
export function cutWhenStalled(res: ServerResponse, stallMs: number, onStall: () => void): void {
  let stalledSince: number | undefined;
  const timer = setInterval(
    () => {
      if (!res.writableNeedDrain) {
        stalledSince = undefined;
        return;
      }
      stalledSince ??= Date.now();
      if (Date.now() - stalledSince >= stallMs) {
        clearInterval(timer);
        onStall();
        res.destroy();
      }
    },
    Math.min(STALL_CHECK_MS, stallMs),
  );
  timer.unref();
  res.once('close', () => clearInterval(timer));
}

/** The trailer that carries an error found after the status line (the JSON error body, on one line). */
export const ERROR_TRAILER = 'X-Voxsmith-Error';

/**
 * Sends `body` as the streamed response. A catalogue error after the status line (a limit reached mid-stream)
 * ends the chunked body cleanly with the error in the X-Voxsmith-Error trailer; any other failure cuts the
 * stream and is logged.
 */
export function sendStreamed(
  request: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
  body: AsyncIterable<string | Uint8Array>,
): FastifyReply {
  async function* logged(): AsyncGenerator<string | Uint8Array> {
    try {
      yield* body;
    } catch (err) {
      if (err instanceof AppError && !signal.aborted) {
        request.log.info({ code: err.code }, 'speech stopped mid-stream');
        reply.raw.addTrailers({ [ERROR_TRAILER]: JSON.stringify(errorEnvelope(err, request.id)) });
        return;
      }
      if (!signal.aborted) request.log.error({ err }, 'synthesis failed mid-stream');
      throw err;
    }
  }
  reply.header('Trailer', ERROR_TRAILER);
  cutWhenStalled(reply.raw, WRITE_STALL_MS, () => request.log.info({ stallMs: WRITE_STALL_MS }, 'client took no audio; connection cut'));
  return reply.send(Readable.from(logged(), { objectMode: false }));
}

/** The speech as an audio file, streamed as it is synthesized (shared by /v1/speak and /v1/audio/speech). */
export function sendAudio(request: FastifyRequest, reply: FastifyReply, signal: AbortSignal, speech: Speech): FastifyReply {
  async function* bytes(): AsyncGenerator<Uint8Array> {
    for await (const chunk of speech.chunks) if (chunk.bytes.length > 0) yield chunk.bytes;
  }
  reply
    .type(speech.info.contentType)
    .header('Content-Disposition', `inline; filename="speech.${speech.info.extension}"`)
    .header('X-Sample-Rate', String(speech.info.sampleRate))
    .header('X-Voice-Id', speech.voiceId)
    .header('Cache-Control', 'no-store');
  return sendStreamed(request, reply, signal, bytes());
}

/** A whole speech read into memory, for the answers that send it as one JSON body with its timings. */
export interface CollectedSpeech {
  bytes: Buffer;
  /** Seconds of audio. */
  seconds: number;
  words: WordTiming[];
  marks: MarkTiming[];
}

/**
 * Reads every chunk of `speech` (usage is counted once the last one is read). A long WAV was streamed with the
 * open-ended header; read whole, its length is known, so the header gets its real sizes.
 */
export async function collectSpeech(speech: Speech): Promise<CollectedSpeech> {
  const parts: Uint8Array[] = [];
  const words: WordTiming[] = [];
  const marks: MarkTiming[] = [];
  let seconds = 0;
  for await (const chunk of speech.chunks) {
    parts.push(chunk.bytes);
    seconds += chunk.seconds;
    if (chunk.words) words.push(...chunk.words);
    if (chunk.marks) marks.push(...chunk.marks);
  }
  return { bytes: Buffer.concat(withKnownWavLength(parts)), seconds, words, marks };
}
