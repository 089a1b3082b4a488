import { AppError } from '../../errors.ts';
import type { SynthesizeMessage } from '../../schemas/stream.ts';
import { InputStream, type InputStreamOptions, type SentenceWork, type StreamVoice } from '../../speech/input-stream.ts';

export type { SentenceWork };

/**
 * An input-streaming context: its text goes through an InputStream; this adds what the WebSocket frames around
 * it. An utterance is what lies between the context's opening (or its last done) and its next flush; its audio
 * timeline and text offsets start at 0.
 */
export class InputContext {
  readonly input: InputStream;
  /** Samples delivered in this utterance (the next audio message's words are shifted by them). */
  samples = 0;
  /** The last piece has come (continue: false): the context ends after its done. */
  ending = false;

  constructor(
    readonly id: string,
    first: SynthesizeMessage,
    options: Omit<InputStreamOptions, 'voice' | 'tooLong'>,
  ) {
    const voice: StreamVoice = { voiceId: first.voice_id, engine: first.engine, speed: first.speed, lexicons: first.lexicons };
    this.input = new InputStream({
      ...options,
      voice,
      tooLong: (wouldHold, limit) => `context "${id}" would hold ${wouldHold} unspoken characters; the limit is ${limit} (MAX_TEXT_CHARS)`,
    });
  }

  /** A later message may repeat the context's voice settings, not change them mid-utterance. */
  checkSameVoice(message: SynthesizeMessage): void {
    const given: StreamVoice = { voiceId: message.voice_id, engine: message.engine, speed: message.speed };
    const { voice } = this.input;
    for (const key of ['voiceId', 'engine', 'speed'] as const) {
      if (given[key] !== undefined && given[key] !== voice[key]) {
        const field = key === 'voiceId' ? 'voice_id' : key;
        throw new AppError('validation', `${field} is set by a context's first message; use a new context_id for other settings`);
      }
    }
  }

  /** Called when the utterance's done goes out. */
  endUtterance(): void {
    this.samples = 0;
  }
}
