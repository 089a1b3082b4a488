// The parsed form of a speech request: what to say, in order, with where each piece came from in the request
// string. Plain text and SSML both become a Script (SSML in ssml.ts), so the worker, lexicons and timings handle
// one shape. Offsets and lengths are UTF-16 code units of the ORIGINAL request string, so a word's timing can
// point back at what the user wrote (an SSML entity, a say-as date, "$5.20").

import type { PhonemeAlphabet } from '../../schemas/lexicons.ts';

/** Where a piece sits in the request string. */
export interface SourceSpan {
  offset: number;
  length: number;
}

/**
 * The prosody, voice and language a run is spoken with (SSML prosody/emphasis/voice/lang; nested elements
 * multiply). Absent fields keep the request's own values.
 */
export interface RunContext {
  /** Speaking-rate multiplier on top of the request speed (1 = unchanged). */
  rate?: number;
  /** Pitch multiplier of the voice's base pitch (1 = unchanged); only engines with a pitch control honour it. */
  pitch?: number;
  /** An absolute base pitch in Hz (`pitch="180Hz"`); `pitch` then multiplies it. */
  pitchHz?: number;
  /** Hz added to the base pitch (`pitch="+20Hz"`). */
  pitchShiftHz?: number;
  /** Linear gain multiplier (1 = unchanged). */
  volume?: number;
  /** A `<voice name>` as written; SpeechService resolves it into SpeechRequest.voices. */
  voice?: string;
  /** A BCP 47 tag from `xml:lang` / `<lang>` (informational for the engines that pick a voice per language). */
  lang?: string;
}

/**
 * Text spoken as written (after normalization). `map`, when present, holds the source offset of each
 * UTF-16 unit of `text` plus one entry for its end (`map.length === text.length + 1`); without it, text[i]
 * is source offset `offset + i` (the text is a verbatim slice of the request).
 */
export interface TextRun extends SourceSpan {
  type: 'text';
  text: string;
  map?: number[];
  context: RunContext;
}

export type SayAsKind = 'characters' | 'cardinal' | 'ordinal' | 'digits' | 'date' | 'time' | 'telephone';

/** `<say-as>`: the content is read the way `interpretAs` says (expanded in the worker, per language). */
export interface SayAsRun extends SourceSpan {
  type: 'say-as';
  interpretAs: SayAsKind;
  /** date: the field order, e.g. "mdy", "dmy", "ymd", "md", "dm", "ym", "my", "y", "m", "d". */
  format?: string;
  text: string;
  context: RunContext;
}

/** `<sub alias>`: `alias` is spoken; the span is the original (written) text it stands for. */
export interface SubRun extends SourceSpan {
  type: 'sub';
  alias: string;
  /** The written text the alias replaces. */
  text: string;
  context: RunContext;
}

/**
 * `<phoneme ph alphabet>`: engines that take phonemes speak `ph`; the others speak `text` (the grapheme) and
 * the pipeline says so in its documentation (flite).
 */
export interface PhonemeRun extends SourceSpan {
  type: 'phoneme';
  ph: string;
  alphabet: PhonemeAlphabet;
  text: string;
  context: RunContext;
}

/** Silence of exactly `seconds` (`<break>`; replaces the pause the sentence boundary would have had). */
export interface BreakPiece extends SourceSpan {
  type: 'break';
  seconds: number;
}

/** `<mark name>`: reported with the time it is reached in the audio. */
export interface MarkPiece extends SourceSpan {
  type: 'mark';
  name: string;
}

/** The end of a `<p>` or `<s>`: the next text starts a new paragraph/sentence (with its usual pause). */
export interface BoundaryPiece {
  type: 'boundary';
  kind: 'paragraph' | 'sentence';
}

/** A piece that is spoken. */
export type SpokenRun = TextRun | SayAsRun | SubRun | PhonemeRun;
export type ScriptPiece = SpokenRun | BreakPiece | MarkPiece | BoundaryPiece;

export interface Script {
  pieces: ScriptPiece[];
}

/** The script of a plain-text request: one run covering all of it. */
export function plainScript(text: string): Script {
  return { pieces: text.length === 0 ? [] : [{ type: 'text', text, offset: 0, length: text.length, context: {} }] };
}

/** The source offset of position `i` (0..text.length) of a text run. */
export function sourceOffsetOf(run: TextRun, i: number): number {
  if (run.map) return run.map[Math.max(0, Math.min(run.map.length - 1, i))];
  return run.offset + Math.max(0, Math.min(run.text.length, i));
}

/**
 * The part [start, end) of a text run as a run of its own, with its source span and map; for cutting a run
 * around a lexicon match or any other piece that replaces part of it.
 */
export function sliceTextRun(run: TextRun, start: number, end: number): TextRun {
  const s = Math.max(0, Math.min(run.text.length, start));
  const e = Math.max(s, Math.min(run.text.length, end));
  const offset = sourceOffsetOf(run, s);
  const length = sourceOffsetOf(run, e) - offset;
  const text = run.text.slice(s, e);
  const out: TextRun = { type: 'text', text, offset, length, context: run.context };
  if (run.map) out.map = run.map.slice(s, e + 1);
  return out;
}

/**
 * The characters of spokenLength that come before source offset `end`: what was said once the audio reached the
 * word ending there (usage of speech cut short). A piece that `end` falls inside counts in part (text) or whole.
 */
export function spokenLengthBefore(script: Script, end: number): number {
  let n = 0;
  for (const p of script.pieces) {
    if (p.type === 'break' || p.type === 'mark' || p.type === 'boundary' || p.offset >= end) continue;
    if (p.type === 'text') {
      let i = 0;
      while (i < p.text.length && sourceOffsetOf(p, i) < end) i++;
      n += i;
    } else n += p.type === 'sub' ? p.alias.length : p.text.length;
  }
  return n;
}

/** The characters a script speaks (what MAX_TEXT_CHARS and usage count for SSML). */
export function spokenLength(script: Script): number {
  let n = 0;
  for (const p of script.pieces) {
    if (p.type === 'text' || p.type === 'say-as' || p.type === 'phoneme') n += p.text.length;
    else if (p.type === 'sub') n += p.alias.length;
  }
  return n;
}
