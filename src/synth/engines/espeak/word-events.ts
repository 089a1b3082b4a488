// espeak's word events -> one EngineWord per written word. espeak joins an unstressed function word to the word
// before it ("on the" is read as one word, ɔnðə) and reports no event for it, though the audio has it: about 3 %
// of English words ("the", "a", "of") went without a timing. The phoneme events that follow a word event carry
// the phonemes of the whole joined group, so a word missing from the events is given the share of the group's
// phonemes its letters take, and starts at the first of them.
import type { EngineWord } from '../../engine.ts';

export interface PhonemeEvent {
  /** Seconds from the start of the call's audio. */
  time: number;
  /** IPA; empty for espeak's pauses. */
  ipa: string;
}

interface Open {
  word: EngineWord;
  phonemes: PhonemeEvent[];
}

// A word as espeak splits them: letters, digits and the marks that stay inside one ("don't", "e-mail" is two).
const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;

/** Collects one call's events in order; words come out once their phonemes are known (at the next word, or the end). */
export class WordEvents {
  private open: Open | undefined;

  constructor(private readonly text: string) {}

  /** A word event at UTF-16 [offset, offset + length); returns the words it completes. */
  word(offset: number, length: number, time: number): EngineWord[] {
    const done = this.close(offset);
    this.open = { word: { text: this.text.slice(offset, offset + length), offset, length, time }, phonemes: [] };
    return done;
  }

  phoneme(time: number, ipa: string): void {
    if (ipa !== '') this.open?.phonemes.push({ time, ipa });
  }

  /** The call ended (`complete`: the whole text was spoken, not stopped short): the words still held. */
  end(complete: boolean): EngineWord[] {
    const open = this.open;
    return this.close(complete || !open ? this.text.length : open.word.offset + open.word.length);
  }

  /** Closes the open word; the written words between it and `until` that had no event of their own share its phonemes. */
  private close(until: number): EngineWord[] {
    const open = this.open;
    this.open = undefined;
    if (!open) return [];
    const from = open.word.offset + open.word.length;
    const joined = [...this.text.slice(from, Math.max(from, until)).matchAll(WORD)].map((m) => ({
      text: m[0],
      offset: from + (m.index ?? 0),
      length: m[0].length,
    }));
    // More words than the group has phonemes to spare: not a joined group (a render stopped short).
    if (joined.length === 0 || joined.length >= open.phonemes.length) return [open.word];
    const letters = [open.word, ...joined].map((w) => w.text.length);
    const total = letters.reduce((a, b) => a + b, 0);
    const n = open.phonemes.length;
    const out: EngineWord[] = [open.word];
    let seen = letters[0];
    let at = 0;
    for (let i = 0; i < joined.length; i++) {
      // Each word keeps at least one phoneme.
      at = Math.min(n - (joined.length - i), Math.max(at + 1, Math.round((n * seen) / total)));
      out.push({ ...joined[i], time: open.phonemes[at].time });
      seen += letters[i + 1];
    }
    return out;
  }
}
