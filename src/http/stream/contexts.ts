import { AppError } from '../../errors.ts';
import type { SynthesizeMessage } from '../../schemas/stream.ts';
import { SentenceStream, type ReadySentence } from '../../synth/text/incremental.ts';
import type { Break } from '../../synth/text/split.ts';

/** What a context speaks with: fixed by its first message. */
export interface ContextVoice {
  voiceId?: string;
  engine?: string;
  speed?: number;
  /** Set by the context's first message, like the voice. */
  lexicons?: string[];
}

/** One sentence of a context, waiting for (or in) synthesis. */
export interface SentenceWork {
  text: string;
  /** Its place in the utterance's text. */
  offset: number;
  /** The pause before it: none for the first sentence of an utterance. */
  pauseBefore?: Break;
}

/**
 * An input-streaming context: text pieces accumulate, complete sentences go out for synthesis. An utterance is
 * what lies between the context's opening (or its last done) and its next flush; its audio timeline and text
 * offsets start at 0.
 */
export class InputContext {
  readonly voice: ContextVoice;
  private readonly text = new SentenceStream();
  /** The break after the last sentence handed out in this utterance (the pause before the next). */
  private lastBreak: Break | undefined;
  /** Sentences handed out and not spoken yet, in characters (bounded with the unsplit text). */
  queuedChars = 0;
  /** Samples delivered in this utterance (the next audio message's words are shifted by them). */
  samples = 0;
  /** The last piece has come (continue: false): the context ends after its done. */
  ending = false;

  constructor(
    readonly id: string,
    first: SynthesizeMessage,
  ) {
    this.voice = { voiceId: first.voice_id, engine: first.engine, speed: first.speed, lexicons: first.lexicons };
  }

  /** A later message may repeat the context's voice settings, not change them mid-utterance. */
  checkSameVoice(message: SynthesizeMessage): void {
    const given: ContextVoice = { voiceId: message.voice_id, engine: message.engine, speed: message.speed };
    for (const key of ['voiceId', 'engine', 'speed'] as const) {
      if (given[key] !== undefined && given[key] !== this.voice[key]) {
        const field = key === 'voiceId' ? 'voice_id' : key;
        throw new AppError('validation', `${field} is set by a context's first message; use a new context_id for other settings`);
      }
    }
  }

  /** Adds a piece; returns the sentences it completed. Refuses a piece that would hold more than `maxChars` unspoken. */
  push(piece: string, maxChars: number): SentenceWork[] {
    const held = this.text.pendingChars + this.queuedChars;
    if (held + piece.length > maxChars) {
      throw new AppError('text_too_long', `context "${this.id}" would hold ${held + piece.length} unspoken characters; the limit is ${maxChars} (MAX_TEXT_CHARS)`);
    }
    return this.work(this.text.push(piece));
  }

  /** The rest of the utterance's text, complete sentence or not; the next piece starts a new utterance. */
  flush(): SentenceWork[] {
    const out = this.work(this.text.flush());
    this.lastBreak = undefined;
    return out;
  }

  /** Called when the utterance's done goes out. */
  endUtterance(): void {
    this.samples = 0;
  }

  private work(sentences: ReadySentence[]): SentenceWork[] {
    return sentences.map((s) => {
      const work = { text: s.text, offset: s.offset, ...(this.lastBreak ? { pauseBefore: this.lastBreak } : {}) };
      this.lastBreak = s.break;
      this.queuedChars += s.text.length;
      return work;
    });
  }
}
