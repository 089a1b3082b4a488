// The SSML subset Voxsmith speaks, parsed with saxes (a strict, non-validating XML parser that reports line,
// column and string positions and decodes entities itself), into a Script. Anything outside the subset is an
// error naming its line, column and element rather than being skipped, so a client learns what was not spoken.
import { SaxesParser, type SaxesTag } from 'saxes';
import {
  parseProsodyPitch,
  parseProsodyRate,
  parseProsodyVolume,
  parseBreakTime,
  BREAK_STRENGTHS,
  MAX_BREAK_SECONDS,
  MAX_BREAK_SECONDS_PER_REQUEST,
} from './ssml-values.ts';
import { PHONEME_ALPHABETS, type PhonemeAlphabet } from '../../schemas/lexicons.ts';
import { lookupTable } from './lookup-table.ts';
import type { BoundaryPiece, RunContext, SayAsKind, Script, ScriptPiece, SourceSpan, TextRun } from './script.ts';

export class SsmlError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    readonly element: string | undefined,
  ) {
    super(`SSML error at line ${line}, column ${column}${element ? `, element <${element}>` : ''}: ${message}`);
    this.name = 'SsmlError';
  }
}

export interface SsmlLimits {
  /** Deepest element nesting. */
  maxDepth: number;
  /** Most elements in one document. */
  maxElements: number;
}

export const DEFAULT_SSML_LIMITS: SsmlLimits = { maxDepth: 32, maxElements: 2000 };

/** The longest `<sub alias>` and `<phoneme ph>`, in characters. */
const MAX_ATTRIBUTE_TEXT_CHARS = 1000;

const SAY_AS = lookupTable<SayAsKind>({
  characters: 'characters',
  'spell-out': 'characters',
  letters: 'characters',
  cardinal: 'cardinal',
  number: 'cardinal',
  ordinal: 'ordinal',
  digits: 'digits',
  date: 'date',
  time: 'time',
  telephone: 'telephone',
});

// Attributes each element takes; namespace declarations and xml:lang are allowed everywhere they make sense.
const COMMON = ['xml:lang', 'xml:base', 'xml:id', 'id'];
const ATTRIBUTES = lookupTable<readonly string[]>({
  speak: [...COMMON, 'version', 'xmlns', 'xmlns:xsi', 'xsi:schemaLocation', 'xmlns:mstts', 'xmlns:amazon'],
  p: COMMON,
  s: COMMON,
  break: ['time', 'strength'],
  prosody: ['rate', 'pitch', 'volume'],
  emphasis: ['level'],
  'say-as': ['interpret-as', 'format', 'detail'],
  sub: ['alias'],
  phoneme: ['ph', 'alphabet'],
  lang: ['xml:lang'],
  voice: ['name', 'xml:lang'],
  mark: ['name'],
});

// Elements whose content is captured as one run (text only inside).
const LEAF_RUNS = new Set(['say-as', 'sub', 'phoneme']);

/** emphasis levels as (rate, volume) multipliers: slower and louder for stress, quicker and softer reduced. */
const EMPHASIS = lookupTable<{ rate: number; volume: number }>({
  strong: { rate: 0.85, volume: 1.41 },
  moderate: { rate: 0.92, volume: 1.19 },
  none: { rate: 1, volume: 1 },
  reduced: { rate: 1.1, volume: 0.8 },
});

interface Frame {
  name: string;
  context: RunContext;
  /** For say-as/sub/phoneme: the attributes and the text collected so far. */
  leaf?: { attrs: Record<string, string>; sayAs?: SayAsKind; text: string; start: number; end: number; line: number; column: number };
}

/** Line starts of the source, to turn saxes' (line, column) into string offsets and back. */
function lineStarts(src: string): number[] {
  const starts = [0];
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '\n' || (src[i] === '\r' && src[i + 1] !== '\n')) starts.push(i + 1);
  }
  return starts;
}

function lineColumnOf(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

/**
 * The source offset of each UTF-16 unit of `decoded`, which saxes made from raw[start, end) by decoding
 * entity and character references and normalizing line ends; undefined if the two do not line up.
 */
function mapDecoded(src: string, start: number, end: number, decoded: string, entities: boolean): number[] | undefined {
  const map: number[] = [];
  let i = start;
  while (i < end && map.length < decoded.length) {
    if (entities && src[i] === '&') {
      const semi = src.indexOf(';', i);
      if (semi < 0 || semi >= end) return undefined;
      const units = decoded.codePointAt(map.length)! > 0xffff ? 2 : 1;
      for (let k = 0; k < units; k++) map.push(i);
      i = semi + 1;
    } else if (src[i] === '\r') {
      map.push(i);
      i += src[i + 1] === '\n' ? 2 : 1;
    } else {
      map.push(i);
      i++;
    }
  }
  if (map.length !== decoded.length) return undefined;
  map.push(end);
  return map;
}

/** Parses a whole SSML document (root `<speak>`) into a Script; throws SsmlError. */
export function parseSsml(src: string, limits: SsmlLimits = DEFAULT_SSML_LIMITS): Script {
  return new SsmlReader(src, limits, false, newBudget()).read();
}

/** What a whole request has used of its limits: its elements and its break time (shared by every tag of plain text). */
interface Budget {
  elements: number;
  breakSeconds: number;
}

const newBudget = (): Budget => ({ elements: 0, breakSeconds: 0 });

/** Plain text that may carry `<break time="…"/>` tags (as ElevenLabs allows); everything else is read as written. */
export function parsePlainWithBreaks(src: string): Script {
  const pieces: ScriptPiece[] = [];
  // The tags of one text share the limits of one SSML document: as many elements, as much break time.
  const budget = newBudget();
  let last = 0;
  const text = (from: number, to: number): void => {
    if (to > from) pieces.push({ type: 'text', text: src.slice(from, to), offset: from, length: to - from, context: {} });
  };
  for (let at = src.indexOf('<break'); at >= 0; at = src.indexOf('<break', at + 1)) {
    const next = src[at + 6];
    // "<breakfast>" is text.
    if (next !== undefined && !/[\s/>]/.test(next)) continue;
    const close = src.indexOf('>', at);
    const end = close < 0 ? src.length : close + 1;
    const tag = new SsmlReader(src, DEFAULT_SSML_LIMITS, true, budget, at, end).read();
    text(last, at);
    pieces.push(...tag.pieces);
    last = end;
    at = end - 1;
  }
  text(last, src.length);
  return { pieces };
}

class SsmlReader {
  private readonly starts: number[];
  private readonly pieces: ScriptPiece[] = [];
  private readonly stack: Frame[] = [];
  /** End offset of the last markup the parser went past (where the next text node starts). */
  private lastEnd: number;
  private tagStart = 0;
  private sawRoot = false;

  constructor(
    private readonly src: string,
    private readonly limits: SsmlLimits,
    /** Only a single `<break/>` is allowed (plain text with breaks). */
    private readonly breakOnly: boolean,
    private readonly budget: Budget,
    private readonly from = 0,
    private readonly to = src.length,
  ) {
    this.starts = lineStarts(src);
    this.lastEnd = from;
  }

  private fail(message: string, offset: number, element?: string): never {
    const { line, column } = lineColumnOf(this.starts, offset);
    throw new SsmlError(message, line, column, element ?? this.stack[this.stack.length - 1]?.name);
  }

  read(): Script {
    const parser = new SaxesParser({ position: true });
    // saxes positions are indexes into what it was given; it is given [from, to).
    const at = (): number => this.from + parser.position;
    parser.on('error', (e) => {
      // saxes' message starts with its own "line:column: "; ours says where.
      this.fail(e.message.replace(/^\d+:\d+:\s*/, ''), Math.min(this.to, Math.max(this.from, at() - 1)));
    });
    parser.on('doctype', () => this.fail('a DOCTYPE is not allowed', this.lastEnd));
    parser.on('processinginstruction', () => {
      this.lastEnd = at();
    });
    parser.on('comment', () => {
      this.lastEnd = at();
    });
    parser.on('opentagstart', () => {
      // saxes has read the name and the character after it; the tag starts at the '<' before.
      this.tagStart = Math.max(this.from, this.src.lastIndexOf('<', at() - 1));
    });
    parser.on('opentag', (tag) => {
      this.open(tag, Math.min(this.to, at()));
      this.lastEnd = at();
    });
    parser.on('closetag', (tag) => {
      this.close(tag.name);
      this.lastEnd = at();
    });
    parser.on('text', (t) => {
      // Fired when the next '<' (or the end) is read: the text ends just before it.
      const end = parser.closed ? this.to : Math.min(this.to, at() - 1);
      this.text(t, this.lastEnd, end, true);
      this.lastEnd = end;
    });
    parser.on('cdata', (t) => {
      const end = at() - 3;
      this.text(t, end - t.length, end, false);
      this.lastEnd = at();
    });
    parser.write(this.src.slice(this.from, this.to)).close();
    if (!this.sawRoot) this.fail(this.breakOnly ? 'expected <break/>' : 'expected a <speak> element', this.from);
    return { pieces: this.pieces };
  }

  private context(): RunContext {
    return this.stack[this.stack.length - 1]?.context ?? {};
  }

  private open(tag: SaxesTag, tagEnd: number): void {
    const name = tag.name;
    // Without the xmlns option saxes gives plain string attributes.
    const attrs = tag.attributes as Record<string, string>;
    const start = this.tagStart;
    if (this.stack.length === 0) {
      if (this.breakOnly ? name !== 'break' : name !== 'speak') {
        this.fail(this.breakOnly ? 'expected <break/>' : 'the root element must be <speak>', start, name);
      }
      this.sawRoot = true;
    } else if (name === 'speak') {
      this.fail('<speak> may only be the root element', start, name);
    }
    const allowed = ATTRIBUTES[name];
    if (!allowed) this.fail(`unsupported element <${name}> (supported: ${Object.keys(ATTRIBUTES).join(', ')})`, start, name);
    const parent = this.stack[this.stack.length - 1];
    if (parent?.leaf) this.fail(`<${parent.name}> may only contain text, not <${name}>`, start, name);
    if (parent && (parent.name === 'break' || parent.name === 'mark')) this.fail(`<${parent.name}> must be empty`, start, name);
    const unknown = Object.keys(attrs).filter((a) => !allowed.includes(a) && !a.startsWith('xmlns:'));
    if (unknown.length > 0) {
      this.fail(
        `unknown attribute${unknown.length > 1 ? 's' : ''} ${unknown.map((a) => JSON.stringify(a)).join(', ')} (allowed: ${allowed.join(', ') || 'none'})`,
        start,
        name,
      );
    }
    if (++this.budget.elements > this.limits.maxElements)
      this.fail(`more than ${this.limits.maxElements} elements${this.breakOnly ? ' (<break/> tags)' : ''}`, start, name);
    if (this.stack.length >= this.limits.maxDepth) this.fail(`elements nested deeper than ${this.limits.maxDepth}`, start, name);

    const bad: (attr: string, message: string) => never = (attr, message) => this.fail(`${attr}: ${message}`, start, name);
    const ctx: RunContext = { ...this.context() };
    const lang = attrs['xml:lang'];
    if (lang !== undefined) {
      if (!/^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(lang)) bad('xml:lang', `${JSON.stringify(lang)} is not a language tag`);
      ctx.lang = lang;
    }
    const frame: Frame = { name, context: ctx };
    let sayAs: SayAsKind | undefined;
    switch (name) {
      case 'p':
      case 's':
        this.boundary(name === 'p' ? 'paragraph' : 'sentence');
        break;
      case 'break': {
        const { time, strength } = attrs;
        let seconds: number;
        if (time !== undefined) {
          const t = parseBreakTime(time);
          if (t === undefined) bad('time', `${JSON.stringify(time)} is not a duration like "500ms" or "1.5s"`);
          if (t > MAX_BREAK_SECONDS) bad('time', `${JSON.stringify(time)} is longer than ${MAX_BREAK_SECONDS} s`);
          seconds = t;
        } else {
          const s = strength ?? 'medium';
          const v = BREAK_STRENGTHS[s];
          if (v === undefined) bad('strength', `must be one of ${Object.keys(BREAK_STRENGTHS).join(', ')}`);
          seconds = v;
        }
        this.budget.breakSeconds += seconds;
        if (this.budget.breakSeconds > MAX_BREAK_SECONDS_PER_REQUEST) {
          this.fail(`the breaks add up to more than ${MAX_BREAK_SECONDS_PER_REQUEST} s, the most one request may hold`, start, name);
        }
        this.pieces.push({ type: 'break', seconds, offset: start, length: tagEnd - start });
        break;
      }
      case 'mark': {
        const n = attrs.name;
        if (n === undefined || n === '') bad('name', 'is required');
        if (n.length > 200) bad('name', 'is longer than 200 characters');
        this.pieces.push({ type: 'mark', name: n, offset: start, length: tagEnd - start });
        break;
      }
      case 'prosody': {
        if (attrs.rate !== undefined) {
          const r = parseProsodyRate(attrs.rate);
          if (r === undefined)
            bad(
              'rate',
              `${JSON.stringify(attrs.rate)} is not x-slow, slow, medium, fast, x-fast, default, a percentage ("50%", "+20%") or a multiplier`,
            );
          ctx.rate = (ctx.rate ?? 1) * r;
        }
        if (attrs.pitch !== undefined) {
          const p = parseProsodyPitch(attrs.pitch);
          if (p === undefined)
            bad('pitch', `${JSON.stringify(attrs.pitch)} is not x-low … x-high, default, "+10%", "-2st", "+20Hz" or "180Hz"`);
          if (p.absoluteHz !== undefined) {
            ctx.pitchHz = p.absoluteHz;
            ctx.pitch = 1;
          }
          if (p.relativeHz !== undefined) ctx.pitchShiftHz = (ctx.pitchShiftHz ?? 0) + p.relativeHz;
          if (p.factor !== undefined) ctx.pitch = (ctx.pitch ?? 1) * p.factor;
        }
        if (attrs.volume !== undefined) {
          const v = parseProsodyVolume(attrs.volume);
          if (v === undefined)
            bad('volume', `${JSON.stringify(attrs.volume)} is not silent, x-soft … x-loud, default, "+6dB" or a number 0-100`);
          ctx.volume = (ctx.volume ?? 1) * v;
        }
        break;
      }
      case 'emphasis': {
        const level = attrs.level ?? 'moderate';
        const e = EMPHASIS[level];
        if (!e) bad('level', `must be one of ${Object.keys(EMPHASIS).join(', ')}`);
        ctx.rate = (ctx.rate ?? 1) * e.rate;
        ctx.volume = (ctx.volume ?? 1) * e.volume;
        break;
      }
      case 'voice': {
        const n = attrs.name;
        if (n === undefined || n.trim() === '') bad('name', 'is required');
        if (n.length > 200) bad('name', 'is longer than 200 characters');
        ctx.voice = n.trim();
        break;
      }
      case 'lang':
        if (lang === undefined) bad('xml:lang', 'is required');
        break;
      case 'say-as': {
        const kind = attrs['interpret-as'];
        if (kind === undefined) bad('interpret-as', 'is required');
        sayAs = SAY_AS[kind];
        if (!sayAs) bad('interpret-as', `${JSON.stringify(kind)} is not one of ${Object.keys(SAY_AS).join(', ')}`);
        if (attrs.format !== undefined && sayAs === 'date' && !/^[dmy]{1,3}$/.test(attrs.format)) {
          bad('format', 'a date format is made of d, m and y, such as "mdy", "dmy", "ymd" or "md"');
        }
        break;
      }
      case 'sub':
        if (attrs.alias === undefined) bad('alias', 'is required');
        if (attrs.alias.length > MAX_ATTRIBUTE_TEXT_CHARS) bad('alias', `is longer than ${MAX_ATTRIBUTE_TEXT_CHARS} characters`);
        break;
      case 'phoneme': {
        if (attrs.ph === undefined || attrs.ph.trim() === '') bad('ph', 'is required');
        if (attrs.ph.length > MAX_ATTRIBUTE_TEXT_CHARS) bad('ph', `is longer than ${MAX_ATTRIBUTE_TEXT_CHARS} characters`);
        const alphabet = attrs.alphabet ?? 'ipa';
        if (!(PHONEME_ALPHABETS as readonly string[]).includes(alphabet))
          bad('alphabet', `must be ${PHONEME_ALPHABETS.map((a) => `"${a}"`).join(' or ')}`);
        break;
      }
    }
    if (LEAF_RUNS.has(name)) {
      const { line, column } = lineColumnOf(this.starts, start);
      frame.leaf = { attrs, ...(sayAs ? { sayAs } : {}), text: '', start: -1, end: -1, line, column };
    }
    this.stack.push(frame);
  }

  private close(name: string): void {
    const frame = this.stack.pop();
    if (!frame) return;
    if (frame.leaf) this.leafRun(frame, name);
    if (name === 'p' || name === 's') this.boundary(name === 'p' ? 'paragraph' : 'sentence');
  }

  private leafRun(frame: Frame, name: string): void {
    const leaf = frame.leaf!;
    const text = leaf.text;
    const span: SourceSpan = leaf.start < 0 ? { offset: this.tagStart, length: 0 } : { offset: leaf.start, length: leaf.end - leaf.start };
    const context = frame.context;
    if (name === 'sub') {
      this.pieces.push({ type: 'sub', alias: leaf.attrs.alias, text, ...span, context });
    } else if (name === 'phoneme') {
      const alphabet: PhonemeAlphabet = leaf.attrs.alphabet === 'x-sampa' ? 'x-sampa' : 'ipa';
      this.pieces.push({ type: 'phoneme', ph: leaf.attrs.ph.trim(), alphabet, text, ...span, context });
    } else {
      const interpretAs = leaf.sayAs ?? 'characters';
      this.pieces.push({
        type: 'say-as',
        interpretAs,
        ...(leaf.attrs.format ? { format: leaf.attrs.format } : {}),
        text,
        ...span,
        context,
      });
    }
  }

  private text(t: string, start: number, end: number, entities: boolean): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      if (t.trim() !== '') this.fail('text outside the root element', start);
      return;
    }
    if (top.name === 'break' || top.name === 'mark') {
      if (t.trim() !== '') this.fail(`<${top.name}> must be empty`, start);
      return;
    }
    if (top.leaf) {
      if (top.leaf.start < 0) top.leaf.start = start;
      top.leaf.end = end;
      top.leaf.text += t;
      return;
    }
    if (t.length === 0) return;
    const run: TextRun = { type: 'text', text: t, offset: start, length: end - start, context: top.context };
    if (t.length !== end - start || t !== this.src.slice(start, end)) {
      run.map =
        mapDecoded(this.src, start, end, t, entities) ??
        new Array<number>(t.length + 1).fill(start).map((v, i) => (i === t.length ? end : v));
    }
    this.pieces.push(run);
  }

  private boundary(kind: BoundaryPiece['kind']): void {
    const last = this.pieces[this.pieces.length - 1];
    if (last === undefined) return;
    if (last.type === 'boundary') {
      if (kind === 'paragraph') last.kind = 'paragraph';
      return;
    }
    this.pieces.push({ type: 'boundary', kind });
  }
}
