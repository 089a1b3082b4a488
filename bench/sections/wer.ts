// Section 12: word error rate of the default voice (flite slt), the engine run natively (Debian's `flite`
// CLI) against the same voice through the service (/v1/speak wav), both heard by Debian's pocketsphinx.
// A worse rate through the service means the pipeline loses speech (clipped onsets, over-eager trimming).
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from '../http-client.ts';
import type { Section } from '../report.ts';
import { fixed } from '../stats.ts';
import { WER_SENTENCES } from '../texts.ts';

const run = promisify(execFile);
const MODEL = '/usr/share/pocketsphinx/model/en-us';
// pocketsphinx 0.8 (Debian's): the batch tool loads the model once for all files, where
// pocketsphinx_continuous would spend seconds loading it per file.
const BATCH = 'pocketsphinx_batch';
const RATE = 16_000;

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Word-level Levenshtein distance: substitutions + deletions + insertions. */
export function wordErrors(reference: string[], heard: string[]): number {
  let prev = Array.from({ length: heard.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const cur = [i];
    for (let j = 1; j <= heard.length; j++) {
      const same = reference[i - 1] === heard[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + same));
    }
    prev = cur;
  }
  return prev[heard.length];
}

async function available(): Promise<string | null> {
  for (const tool of [BATCH, 'flite', 'sox']) {
    if (
      await run('sh', ['-c', `command -v ${tool}`]).then(
        () => false,
        () => true,
      )
    )
      return tool;
  }
  if (
    await access(join(MODEL, 'en-us', 'mdef')).then(
      () => false,
      () => true,
    )
  )
    return 'the pocketsphinx-en-us model';
  return null;
}

/** Recognizes every `<id>.wav` (16 kHz mono s16) in `dir`; returns the hypothesis per id. */
export async function recognize(dir: string, ids: string[]): Promise<Map<string, string>> {
  const ctl = join(dir, 'ctl');
  const hyp = join(dir, 'hyp');
  await writeFile(ctl, `${ids.join('\n')}\n`);
  await run(
    BATCH,
    [
      '-adcin',
      'yes',
      '-adchdr',
      '44',
      '-cepdir',
      dir,
      '-cepext',
      '.wav',
      '-ctl',
      ctl,
      '-hyp',
      hyp,
      '-hmm',
      join(MODEL, 'en-us'),
      '-lm',
      join(MODEL, 'en-us.lm.bin'),
      '-dict',
      join(MODEL, 'cmudict-en-us.dict'),
    ],
    { timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const out = new Map<string, string>();
  // Each line: "<words> (<id> <score>)".
  for (const line of (await readFile(hyp, 'utf8')).split('\n')) {
    const m = /^(.*?)\s*\((\S+)\s+-?\d+\)\s*$/.exec(line);
    if (m) out.set(m[2], m[1]);
  }
  return out;
}

// -D: sox dithers by default when it resamples, with fresh noise each run, which moved the service's WER
// by ±2 points between runs of the same audio (the native files, already 16 kHz, were left alone).
const to16k = (from: string, to: string) => run('sox', ['-D', from, '-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer', to]);

export async function wordErrorRate(base: string, key: string, voice: string): Promise<Section> {
  const title = '12. Word error rate, default voice: native engine vs through the service (pocketsphinx)';
  const missing = await available();
  if (missing) {
    const line = `Skipped: ${missing} is not installed (apt-get install pocketsphinx pocketsphinx-en-us flite sox).`;
    return { title, notes: [line], headers: [], rows: [], summary: [['word error rate native / service', 'skipped (no recognizer)']] };
  }
  const dir = await mkdtemp(join(tmpdir(), 'voxsmith-wer-'));
  try {
    const ids: string[] = [];
    let failures = 0;
    for (const [i, text] of WER_SENTENCES.entries()) {
      const raw = join(dir, `raw-${i}`);
      await run('flite', ['-voice', 'slt', '-t', text, '-o', `${raw}-native.wav`]);
      await to16k(`${raw}-native.wav`, join(dir, `native-${i}.wav`));
      const r = await request(`${base}/v1/speak`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text, voice_id: voice, format: 'wav' }),
        keepBody: true,
      });
      ids.push(`native-${i}`);
      if (r.status !== 200) {
        failures += 1;
        continue;
      }
      await writeFile(`${raw}-service.wav`, r.body());
      await to16k(`${raw}-service.wav`, join(dir, `service-${i}.wav`));
      ids.push(`service-${i}`);
    }
    const heard = await recognize(dir, ids);
    const rows: string[][] = [];
    const totals = { ref: 0, native: 0, service: 0 };
    for (const [i, text] of WER_SENTENCES.entries()) {
      const ref = words(text);
      const n = words(heard.get(`native-${i}`) ?? '');
      const s = words(heard.get(`service-${i}`) ?? '');
      const ne = wordErrors(ref, n);
      const se = wordErrors(ref, s);
      totals.ref += ref.length;
      totals.native += ne;
      totals.service += se;
      if (ne !== se) rows.push([text, `${n.join(' ')} (${ne})`, `${s.join(' ')} (${se})`]);
    }
    const pct = (e: number) => (100 * e) / totals.ref;
    const diff = pct(totals.service) - pct(totals.native);
    const result = `${fixed(pct(totals.native), 1)} % / ${fixed(pct(totals.service), 1)} % (service − native ${diff >= 0 ? '+' : ''}${fixed(diff, 1)} points; target ≤ 1)`;
    return {
      title,
      notes: [
        `${WER_SENTENCES.length} short sentences (bench/texts.ts, ${totals.ref} words). Native: Debian's \`flite -voice slt\`; service: POST /v1/speak`,
        `voice ${voice}, format wav. Both resampled to 16 kHz mono s16 (sox) and recognized by Debian's pocketsphinx (en-us model,`,
        'pocketsphinx_batch). WER = word-level Levenshtein distance / reference words, after lower-casing and stripping punctuation.',
        `**WER native / service: ${result}**${failures ? `; ${failures} service requests failed (counted as all words lost)` : ''}.`,
        rows.length
          ? 'Sentences heard differently (errors in brackets):'
          : 'Every sentence had as many errors natively as through the service.',
      ],
      headers: ['sentence', 'native heard', 'service heard'],
      rows,
      summary: [['word error rate flite slt, native / service', result]],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
