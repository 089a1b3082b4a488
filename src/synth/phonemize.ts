// POST /v1/phonemize in the worker: the text as the engine is given it (lexicon applied, normalized) and the
// phonemes of each word. espeak, Piper and Kokoro voices all speak espeak-ng's IPA; flite reports its own phones
// (CMU lexicon, then letter-to-sound rules) from `flite -ps`.
import { phonemize as espeakPhonemes } from './engines/espeak/phonemize.ts';
import { flitePhones } from './engines/flite/phones.ts';
import { findKokoroVoice, findPiperVoice, kokoroLanguage } from './neural-models.ts';
import { isEnglishVoice, isKnownVoice } from './registry.ts';
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

/** The espeak-ng voice whose phonemes the voice speaks. */
function espeakVoiceOf(voice: VoiceSpec): string {
  if (voice.engine === 'espeak') return voice.base;
  if (voice.engine === 'piper') {
    const found = findPiperVoice(voice.base);
    if (found) return found.model.espeakVoice;
  }
  if (voice.engine === 'kokoro') {
    const found = findKokoroVoice(voice.base);
    const language = found && kokoroLanguage(found.voice);
    if (language) return language.espeak;
  }
  throw new UnknownVoiceError(voice.engine, voice.base);
}

/**
 * The phonemes of each word of one sentence. espeak phonemizes the sentence as a whole (as the engine does, so
 * "the" before a vowel and stress in context come out as spoken); where it joins words ("on the" → "ɔnðə") the
 * count no longer matches and each word is phonemized on its own instead.
 */
async function sentencePhonemes(sentence: string, words: readonly string[], voice: VoiceSpec): Promise<string[]> {
  if (words.length === 0) return [];
  if (voice.engine === 'flite') return flitePhones(words, voice.base);
  const espeakVoice = espeakVoiceOf(voice);
  const whole = (await espeakPhonemes(sentence, espeakVoice)).words.filter((w) => w !== ',');
  if (whole.length === words.length) return whole;
  const out: string[] = [];
  for (const w of words) out.push((await espeakPhonemes(w, espeakVoice)).words.filter((p) => p !== ',').join(' '));
  return out;
}

/** What the engine is given for `req.text`, word by word with its phonemes. */
export async function phonemizeText(req: PhonemizeRequest): Promise<Phonemized> {
  const { voice } = req;
  if (!isKnownVoice(voice)) throw new UnknownVoiceError(voice.engine, voice.base);
  const english = isEnglishVoice(voice);
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
      const phonemes = await sentencePhonemes(
        sentence.text,
        found.map((m) => m[0]),
        voice,
      );
      found.forEach((m, i) => {
        const fromLexicon = aliased.has(sentence.mapped.starts[m.index] ?? -1);
        words.push({ word: m[0], offset: at + m.index, length: m[0].length, phonemes: phonemes[i] ?? '', alphabet: voice.engine === 'flite' ? 'arpabet' : 'ipa', ...(fromLexicon ? { lexicon: true as const } : {}) });
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
      if (voice.engine === 'flite') {
        // flite takes no phonemes: it says the written word (as the synthesis does), so its own phones are reported.
        parts.push(standingFor(` ${piece.text} `, piece.offset, piece.offset + piece.length));
        continue;
      }
      await flush();
      const at = append(piece.text);
      words.push({ word: piece.text, offset: at, length: piece.text.length, phonemes: piece.ph, alphabet: piece.alphabet, lexicon: true });
    }
  }
  await flush();
  return { normalized, alphabet: voice.engine === 'flite' ? 'arpabet' : 'ipa', words };
}
