// How well Debian's pocketsphinx (en-us model) understands a voice: its word error rate on readings of known
// sentences. The calibration script ranks the forge's base voices by it; the forge tests check a clone's base
// against it. Recognition runs through the bench's pocketsphinx_batch driver (one model load for all files).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recognize, wordErrors } from '../../bench/sections/wer.ts';
import { wavHeader } from '../../src/audio/encoders/wav.ts';
import { int16Bytes } from '../../src/audio/encoders/pcm.ts';
import { resampleAll } from '../../src/audio/resample.ts';

const MODEL = '/usr/share/pocketsphinx/model/en-us/en-us/mdef';
const RATE = 16_000;

/** Debian: apt-get install -y pocketsphinx pocketsphinx-en-us */
export const SKIP_NO_POCKETSPHINX: false | string =
  spawnSync('sh', ['-c', 'command -v pocketsphinx_batch'], { stdio: 'ignore' }).status === 0 && existsSync(MODEL)
    ? false
    : 'pocketsphinx_batch and its en-us model are needed (apt-get install -y pocketsphinx pocketsphinx-en-us)';

export interface Reading {
  /** Mono samples. */
  samples: Float32Array;
  rate: number;
  /** What it says. */
  text: string;
}

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/**
 * For each set of readings (a voice's, say), the percent of its words misheard (substituted, dropped or added)
 * over all its readings together. One recognizer run for all the sets: loading the model is much of the work.
 */
export async function wordErrorRates<K>(sets: ReadonlyMap<K, readonly Reading[]>): Promise<Map<K, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'voxsmith-wer-'));
  try {
    const ids: string[] = [];
    const files = new Map<K, Array<{ id: string; text: string }>>();
    for (const [set, readings] of sets) {
      const mine: Array<{ id: string; text: string }> = [];
      for (const r of readings) {
        const id = `r${ids.length}`;
        const x = r.rate === RATE ? r.samples : await resampleAll(r.samples, r.rate, RATE);
        const pcm = int16Bytes(x);
        await writeFile(join(dir, `${id}.wav`), Buffer.concat([wavHeader('pcm16', RATE, pcm.length), pcm]));
        ids.push(id);
        mine.push({ id, text: r.text });
      }
      files.set(set, mine);
    }
    const heard = await recognize(dir, ids);
    const out = new Map<K, number>();
    for (const [set, mine] of files) {
      let errors = 0;
      let total = 0;
      for (const { id, text } of mine) {
        const ref = words(text);
        errors += wordErrors(ref, words(heard.get(id) ?? ''));
        total += ref.length;
      }
      out.set(set, total > 0 ? (100 * errors) / total : 0);
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The percent of words misheard in one set of readings. */
export async function wordErrorRate(readings: readonly Reading[]): Promise<number> {
  return (await wordErrorRates(new Map([[0, readings]]))).get(0) ?? 0;
}
