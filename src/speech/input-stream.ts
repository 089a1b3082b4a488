// Input streaming, for every door that takes text piece by piece (the WebSocket's contexts, Wyoming's streamed
// text): pieces are cut into sentences as they complete, each is spoken as its own request through the speech
// service after the pause its predecessor's end calls for, and the text held unspoken is bounded. The doors only
// frame what goes in and out.
import type { EncodeFormat } from '../audio/encoders/index.ts';
import { AppError } from '../errors.ts';
import type { SpeechEndpoint } from '../metrics/metrics.ts';
import type { SpeechChunk } from '../synth/synthesizer.ts';
import { SentenceStream, type ReadySentence } from '../synth/text/incremental.ts';
import type { Break } from '../synth/text/split.ts';
import type { Speech, SpeechCaller, SpeechInput, SpeechService } from './speech-service.ts';

export type { Break };

/** What a stream speaks with: fixed when it opens. */
export type StreamVoice = Pick<SpeechInput, 'voiceId' | 'engine' | 'speed' | 'lexicons'>;

/** One sentence of a stream, waiting for (or in) synthesis. */
export interface SentenceWork {
  text: string;
  /** Its place in the utterance's text (what came since the stream opened or was last flushed). */
  offset: number;
  /** The pause before it: none for the first sentence of an utterance. */
  pauseBefore?: Break;
}

export interface InputStreamOptions {
  speech: SpeechService;
  door: SpeechEndpoint;
  format: EncodeFormat;
  voice: StreamVoice;
  /** The output's rate and framing, when the door's client chose them (the vendors' sockets); the format's own otherwise. */
  output?: Pick<SpeechInput, 'sampleRate' | 'codec' | 'headerless'>;
  /** Characters the stream may hold unspoken: text not yet cut plus sentences waiting for synthesis. */
  maxChars: number;
  /** The `text_too_long` message for a piece that would make the stream hold `wouldHold` characters. */
  tooLong(wouldHold: number, limit: number): string;
  /**
   * Drop the uncut text with a piece refused: for a door without a flush, whose stream would otherwise refuse
   * every later piece until it ends.
   */
  dropOnOverflow?: boolean;
  /**
   * Who pays for the next sentence, asked afresh before each one, so a key revoked while the stream is open
   * pays for no further sentence (the database is the truth, even if the revocation's event was lost). Null
   * stops the sentence quietly (the door has closed); a throw is the sentence's failure.
   */
  payer(): Promise<SpeechCaller | null>;
}

export interface SpeakHooks {
  /** The request's place in the fair queue while every synthesis slot is busy (SpeechInput.onQueued). */
  onQueued?: (position: number) => void;
  /** The synthesis has started, before its first chunk. */
  onStart?: (speech: Speech) => Promise<void> | void;
  /** Each chunk, in order; the next is read once this resolves (which is how a slow reader holds synthesis back). */
  onChunk: (chunk: SpeechChunk, speech: Speech) => Promise<void> | void;
}

export class InputStream {
  private readonly text = new SentenceStream();
  /** Sentences handed out and not spoken yet, in characters (bounded with the uncut text). */
  private queuedChars = 0;

  constructor(private readonly options: InputStreamOptions) {}

  get voice(): StreamVoice {
    return this.options.voice;
  }

  /** Adds a piece; returns the sentences it completed. Refuses (`text_too_long`) a piece that would hold more than the budget unspoken. */
  push(piece: string): SentenceWork[] {
    const { maxChars } = this.options;
    const wouldHold = this.text.pendingChars + this.queuedChars + piece.length;
    if (wouldHold > maxChars) {
      if (this.options.dropOnOverflow) this.text.reset();
      throw new AppError('text_too_long', this.options.tooLong(wouldHold, maxChars));
    }
    return this.handOut(this.text.push(piece));
  }

  /** The rest of the utterance's text, complete sentence or not; the next piece starts a new utterance. */
  flush(): SentenceWork[] {
    return this.handOut(this.text.flush());
  }

  /**
   * Speaks one sentence through the speech service like any request (so limits, scheduling, cache and usage
   * apply per sentence), handing its chunks to the door. Stops without a word when `signal` aborts: a chunk is
   * never handed on after it has. True when the sentence was spoken to its end.
   */
  async speak(work: SentenceWork, signal: AbortSignal, hooks: SpeakHooks): Promise<boolean> {
    const { speech: service, door, format, voice, output } = this.options;
    try {
      const caller = await this.options.payer();
      if (!caller || signal.aborted) return false;
      const speech = await service.speak(
        caller,
        { ...voice, ...output, text: work.text, format, door, pauseBefore: work.pauseBefore, onQueued: hooks.onQueued },
        signal,
      );
      await hooks.onStart?.(speech);
      for await (const chunk of speech.chunks) {
        if (signal.aborted) return false;
        await hooks.onChunk(chunk, speech);
      }
      return !signal.aborted;
    } catch (err) {
      if (signal.aborted) return false;
      throw err;
    } finally {
      this.queuedChars -= work.text.length;
    }
  }

  /** Sentences handed out that will not be spoken (a failure before them): they no longer count as held. */
  abandon(works: readonly SentenceWork[]): void {
    for (const work of works) this.queuedChars -= work.text.length;
  }

  private handOut(sentences: ReadySentence[]): SentenceWork[] {
    return sentences.map((s) => {
      this.queuedChars += s.text.length;
      return { text: s.text, offset: s.offset, ...(s.pauseBefore ? { pauseBefore: s.pauseBefore } : {}) };
    });
  }
}
