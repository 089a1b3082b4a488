import { createHash } from 'node:crypto';
import type { VoiceControls } from '../../voice-spec.ts';

// espeak-ng variant files take integers only: a decimal silently breaks the whole line.
const int = (x: number, lo: number, hi: number): number => Math.round(Math.min(hi, Math.max(lo, x)));

/** espeak's built-in voice's `pitch` line, used where neither the variant nor the language file sets one. */
export const ESPEAK_DEFAULT_PITCH: readonly [number, number] = [82, 118];
const FORMANTS = 9;
// Relative noise strength per formant peak, shaped like the shipped `whisper` variant (75 75 50 40 15 10).
const BREATH_SHAPE = [0.75, 0.75, 0.5, 0.4, 0.15, 0.1];

export interface Formant {
  freq: number;
  height: number;
  width: number;
  /** Extra Hz (the optional 5th number). */
  add?: number;
}

/** The lines of a shipped variant that the controls may change. */
export interface VariantBase {
  pitch: readonly [number, number];
  formants: readonly Formant[];
}

/** The numeric lines of an espeak voice or variant file, in order, as [keyword, numbers]; comments dropped. */
function* numericLines(text: string): Generator<[string, number[]]> {
  for (const raw of text.split('\n')) {
    const words = raw
      .replace(/\/\/.*$/, '')
      .trim()
      .split(/\s+/);
    const nums = words.slice(1).map(Number);
    if (nums.length > 0 && nums.every(Number.isFinite)) yield [words[0], nums];
  }
}

/** The file's own `pitch <base> <top>` line (later lines win, as in espeak), if it has one. */
export function pitchLine(text: string): [number, number] | undefined {
  let line: [number, number] | undefined;
  for (const [key, nums] of numericLines(text)) if (key === 'pitch' && nums.length >= 2) line = [nums[0], nums[1]];
  return line;
}

export function parseVariant(text: string): VariantBase {
  const formants: Formant[] = Array.from({ length: FORMANTS }, () => ({ freq: 100, height: 100, width: 100 }));
  for (const [key, nums] of numericLines(text)) {
    const n = nums[0];
    if (key === 'formant' && nums.length >= 4 && n >= 0 && n < FORMANTS) {
      formants[n] = { freq: nums[1], height: nums[2], width: nums[3], ...(nums.length > 4 ? { add: nums[4] } : {}) };
    }
  }
  return { pitch: pitchLine(text) ?? [...ESPEAK_DEFAULT_PITCH], formants };
}

export function hasControls(c: VoiceControls | undefined): boolean {
  if (!c) return false;
  return [c.pitchHz, c.pitchRangeHz, c.formantScale, c.breath, c.flutter, c.roughness].some((v) => v !== undefined);
}

/**
 * The lines that render `controls` on top of a shipped variant (or espeak's default voice). Later lines
 * win in an espeak variant file, so they are appended after the shipped text.
 * - pitch: `pitch <base> <base + range>`; a base without a range keeps the variant's range scaled to the
 *   new base, so a raised voice keeps its liveliness.
 * - formantScale scales every formant's frequency, keeping the variant's own shaping.
 * - breath 0..100 adds formant-shaped noise; flutter 0..100 maps to espeak 0..30 (20 already croaks);
 *   roughness 0..100 maps to espeak's 0..7.
 */
export function controlLines(controls: VoiceControls, base: VariantBase): string[] {
  const lines: string[] = [];
  const { pitchHz, pitchRangeHz, formantScale, breath, flutter, roughness } = controls;
  if (pitchHz !== undefined || pitchRangeHz !== undefined) {
    const [b0, top0] = base.pitch;
    const baseHz = int(pitchHz ?? b0, 30, 500);
    const range = pitchRangeHz ?? ((top0 - b0) * baseHz) / Math.max(1, b0);
    lines.push(`pitch ${baseHz} ${baseHz + int(range, 0, 500)}`);
  }
  if (formantScale !== undefined && Number.isFinite(formantScale)) {
    const s = Math.min(200, Math.max(50, formantScale)) / 100;
    base.formants.forEach((f, n) => {
      const add = f.add !== undefined ? ` ${int(f.add, -2000, 2000)}` : '';
      lines.push(`formant ${n} ${int(f.freq * s, 1, 400)} ${int(f.height, 0, 400)} ${int(f.width, 0, 400)}${add}`);
    });
  }
  if (breath !== undefined) {
    const b = Math.min(100, Math.max(0, breath));
    lines.push(`breath ${BREATH_SHAPE.map((k) => int(b * k, 0, 100)).join(' ')}`);
  }
  if (flutter !== undefined) lines.push(`flutter ${int((flutter * 30) / 100, 0, 30)}`);
  if (roughness !== undefined) lines.push(`roughness ${int((roughness * 7) / 100, 0, 7)}`);
  return lines;
}

/** A complete variant file and the content-derived name it is written under (`vx-<hash>`). */
export function renderVariant(controls: VoiceControls, shipped: string | undefined): { name: string; text: string } {
  const body = (shipped ?? '')
    .split('\n')
    .filter((l) => !/^\s*name\s/.test(l))
    .join('\n');
  const lines = controlLines(controls, parseVariant(shipped ?? ''));
  const content = `${body.trim()}\n${lines.join('\n')}\n`;
  const name = `vx-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
  const text = `language variant\nname ${name}\n${content.replace(/^\s*language variant\s*\n/m, '')}`;
  return { name, text };
}
