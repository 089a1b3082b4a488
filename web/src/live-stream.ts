import { STREAM_SAMPLE_RATE, type SpeechStream, type StreamRequest } from '../../client/index.ts';
import { api } from './api.ts';
import { StreamPlayer } from './audio/stream-player.ts';
import { message } from './components/feedback.tsx';

export interface StreamProgress {
  state: 'connecting' | 'streaming' | 'draining' | 'done' | 'error' | 'cancelled';
  /** Milliseconds from sending the request to the first audio chunk arriving. */
  firstAudioMs: number | null;
  /** Milliseconds from sending the request to the first chunk starting to sound. */
  firstSoundMs: number | null;
  chunks: number;
  seconds: number;
  underruns: number;
  error: string | null;
}

/** Why a stream failed, in words: a refused upgrade says nothing in a browser, so say what it likely was. */
function streamFailure(err: unknown): string {
  const text = message(err);
  return text === 'WebSocket connection failed' || /^WebSocket closed before it opened/.test(text)
    ? 'Could not open the stream (the connection was refused or dropped).'
    : text;
}

/**
 * One streamed synthesis played live, over the SDK's stream on the session cookie (no key in the page). Start
 * it from a click (audio needs a user gesture); `onProgress` gets a fresh snapshot after every chunk.
 */
export function startStream(request: StreamRequest, onProgress: (p: StreamProgress) => void): { cancel: () => void } {
  const player = new StreamPlayer(STREAM_SAMPLE_RATE);
  const progress: StreamProgress = {
    state: 'connecting',
    firstAudioMs: null,
    firstSoundMs: null,
    chunks: 0,
    seconds: 0,
    underruns: 0,
    error: null,
  };
  const emit = () =>
    onProgress({ ...progress, chunks: player.stats.chunks, seconds: player.stats.seconds, underruns: player.stats.underruns });
  const abort = new AbortController();
  // Once all audio has arrived, Stop has nothing left to cancel: the rest just plays out.
  let received = false;

  const run = async () => {
    let connection: SpeechStream | null = null;
    try {
      connection = await api.openStream();
      abort.signal.throwIfAborted();
      const sentAt = performance.now();
      progress.state = 'streaming';
      emit();
      for await (const samples of connection.synthesize(request, { signal: abort.signal })) {
        const startAt = player.push(samples);
        if (progress.firstAudioMs === null) {
          progress.firstAudioMs = performance.now() - sentAt;
          const lead = Math.max(0, startAt - player.context.currentTime);
          progress.firstSoundMs = progress.firstAudioMs + lead * 1000;
        }
        emit();
      }
      received = true;
      progress.state = 'draining';
      emit();
      connection.close();
      await player.drained();
      progress.state = 'done';
    } catch (err) {
      if (abort.signal.aborted) progress.state = 'cancelled';
      else {
        progress.state = 'error';
        progress.error = streamFailure(err);
      }
    } finally {
      connection?.close();
      emit();
      await player.close();
    }
  };

  void player.resume();
  emit();
  void run();

  return {
    cancel: () => {
      if (received || abort.signal.aborted) return;
      abort.abort();
      progress.state = 'cancelled';
      emit();
    },
  };
}
