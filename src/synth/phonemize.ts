// POST /v1/phonemize in the worker: the text as the engine is given it (lexicon applied, normalized) and the
// phonemes of each word. espeak, Piper and Kokoro voices all speak espeak-ng's IPA; flite reports its own phones
// (CMU lexicon, then letter-to-sound rules) from `flite -ps`.
import { engineInfo, isEnglishVoice, isKnownVoice, phonemizeWords } from './registry.ts';
import { UnknownVoiceError } from './engine.ts';
import { prepareMapped } from './text/index.ts';
import { applyLexicon, type LexiconEntry } from './text/lexicon.ts';
import { concatMapped, mappedRun, standingFor, type MappedText } from './text/mapped.ts';
import { plainScript } from './text/script.ts';
import { checkExpandedLength } from './text/spoken-length.ts';
import type { VoiceSpec } from './voice-spec.ts';
import type { PhonemeSet } from '../schemas/phonemize.ts';

export interface PhonemizeRequest {
  text: string;
  voice: VoiceSpec;
  lexicon?: LexiconEntry[];
  /** The most characters the text may say once the lexicon is applied (MAX_TEXT_CHARS); past it a TextTooLongError. */
  maxChars?: number;
}

export interface PhonemizedWord {
  word: string;
  /** UTF-16 offset and length in `normalized`. */
  offset: number;
  length: number;
  phonemes: string;
  alphabet: PhonemeSet;
  /** A lexicon rule set it (an alias's words, or a phoneme rule). */
  lexicon?: true;
}

export interface Phonemized {
  normalized: string;
  /** The engine's own phoneme set. */
  alphabet: 'ipa' | 'arpabet';
  words: PhonemizedWord[];
}

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;

/** What the engine is given for `req.text`, word by word with its phonemes. */
export async function phonemizeText(req: PhonemizeRequest): Promise<Phonemized> {
  const { voice } = req;
  if (!isKnownVoice(voice)) throw new UnknownVoiceError(voice.engine, voice.base);
  const english = isEnglishVoice(voice);
  const { phonemes: alphabet, phonemeInput } = engineInfo(voice.engine).capabilities;
  const script = applyLexicon(plainScript(req.text), req.lexicon);
  if (req.lexicon) checkExpandedLength(script, req.maxChars);
  // Source offsets that an alias stands for: the words spoken there come from the lexicon.
  const aliased = new Set<number>();
  let normalized = '';
  const words: PhonemizedWord[] = [];
  let parts: MappedText[] = [];

  const append = (text: string): number => {
    if (normalized !== '' && text !== '') normalized += ' ';
    const at = normalized.length;
    normalized += text;
    return at;
  };
  const flush = async (): Promise<void> => {
    if (parts.length === 0) return;
    const mapped = concatMapped(parts);
    parts = [];
    for (const sentence of prepareMapped(mapped, { english })) {
      const at = append(sentence.text);
      const found = [...sentence.text.matchAll(WORD)];
      const phonemes = await phonemizeWords(
        voice,
        sentence.text,
        found.map((m) => m[0]),
      );
      found.forEach((m, i) => {
        const fromLexicon = aliased.has(sentence.mapped.starts[m.index] ?? -1);
        words.push({
          word: m[0],
          offset: at + m.index,
          length: m[0].length,
          phonemes: phonemes[i] ?? '',
          alphabet,
          ...(fromLexicon ? { lexicon: true as const } : {}),
        });
      });
    }
  };

  for (const piece of script.pieces) {
    if (piece.type === 'text') parts.push(mappedRun(piece));
    else if (piece.type === 'sub') {
      aliased.add(piece.offset);
      // Spaces around the alias keep it from gluing onto its neighbours' words.
      parts.push(standingFor(` ${piece.alias} `, piece.offset, piece.offset + piece.length));
    } else if (piece.type === 'phoneme') {
      if (!phonemeInput) {
        // The engine takes no phonemes: it says the written word (as the synthesis does), so its own phonemes are reported.
        parts.push(standingFor(` ${piece.text} `, piece.offset, piece.offset + piece.length));
        continue;
      }
      await flush();
      const at = append(piece.text);
      words.push({ word: piece.text, offset: at, length: piece.text.length, phonemes: piece.ph, alphabet: piece.alphabet, lexicon: true });
    }
  }
  await flush();
  return { normalized, alphabet, words };
}
