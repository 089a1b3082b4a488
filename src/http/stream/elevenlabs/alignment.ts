// The characters each audio message of an ElevenLabs socket speaks, in their `alignment` shape, from our word timings.
import type { ElevenLabsStreamAlignment } from '../../../schemas/elevenlabs-stream.ts';
import { CharacterAligner, concatAlignments, type CharacterAlignment } from '../../../speech/character-alignment.ts';
import type { SentenceWork } from '../../../speech/input-stream.ts';
import type { SpeechChunk } from '../../../synth/speech.ts';

const ms = (seconds: number): number => Math.round(seconds * 1000);

/** Our alignment (seconds from a sentence's start) as theirs: milliseconds from `from` (where the message's audio starts). */
function toMessage(a: CharacterAlignment, from: number): ElevenLabsStreamAlignment {
  return {
    chars: a.characters,
    charStartTimesMs: a.character_start_times_seconds.map((t) => Math.max(0, ms(t - from))),
    charDurationsMs: a.character_start_times_seconds.map((t, i) => Math.max(0, ms(a.character_end_times_seconds[i] - t))),
  };
}

/** Characters that take no time at the start of a message: spaces between sentences, punctuation after a last word. */
function untimed(text: string): CharacterAlignment {
  const characters = Array.from(text);
  return { characters, character_start_times_seconds: characters.map(() => 0), character_end_times_seconds: characters.map(() => 0) };
}

/**
 * One context's utterance: the text as the pieces built it, aligned sentence by sentence as their audio goes out, so
 * the characters of all messages joined are the text sent. What lies between sentences (spaces) and after a
 * sentence's last word (its punctuation, known only once its audio has ended) rides on the next message untimed.
 */
export class UtteranceAligner {
  private text = '';
  /** Offset of `text` in the utterance (text before it is aligned and dropped). */
  private base = 0;
  /** The next offset of the utterance not aligned yet. */
  private aligned = 0;
  private sentence: { aligner: CharacterAligner; seconds: number } | null = null;

  /** A piece of text, as received (the utterance's offsets count from its first piece). */
  add(piece: string): void {
    this.text += piece;
  }

  /** A sentence starts speaking: the untimed text before it goes with its first message. */
  start(work: SentenceWork): void {
    this.finishSentence();
    this.sentence = { aligner: new CharacterAligner(work.text), seconds: 0 };
    this.pending.push(untimed(this.slice(this.aligned, work.offset)));
    this.aligned = work.offset + work.text.length;
  }

  /** The alignment of one chunk of the current sentence, with whatever untimed text waited for it; null when empty. */
  chunk(chunk: SpeechChunk): ElevenLabsStreamAlignment | null {
    const sentence = this.sentence;
    if (!sentence) return null;
    const from = sentence.seconds;
    sentence.seconds += chunk.seconds;
    const parts = [...this.pending.splice(0), sentence.aligner.words(chunk.words ?? [])];
    const joined = concatAlignments(parts);
    // The untimed characters start where this message's audio does.
    const lead = parts.slice(0, -1).reduce((n, p) => n + p.characters.length, 0);
    for (let i = 0; i < lead; i++) {
      joined.character_start_times_seconds[i] = from;
      joined.character_end_times_seconds[i] = from;
    }
    return joined.characters.length > 0 ? toMessage(joined, from) : null;
  }

  /** The end of the utterance (a flush): what is left unaligned, for a last message; the next piece starts a new one. */
  end(): ElevenLabsStreamAlignment | null {
    this.finishSentence();
    this.pending.push(untimed(this.slice(this.aligned, this.base + this.text.length)));
    const rest = concatAlignments(this.pending.splice(0));
    this.text = '';
    this.base = 0;
    this.aligned = 0;
    return rest.characters.length > 0 ? toMessage(rest, 0) : null;
  }

  private readonly pending: CharacterAlignment[] = [];

  /** The characters after the sentence's last word wait, untimed, for the next message. */
  private finishSentence(): void {
    if (!this.sentence) return;
    const rest = this.sentence.aligner.finish(this.sentence.seconds);
    this.pending.push(untimed(rest.characters.join('')));
    this.sentence = null;
  }

  private slice(from: number, to: number): string {
    const out = this.text.slice(from - this.base, to - this.base);
    // Text before the aligned point is never read again.
    if (from - this.base > 4096) {
      this.text = this.text.slice(from - this.base);
      this.base = from;
    }
    return out;
  }
}
