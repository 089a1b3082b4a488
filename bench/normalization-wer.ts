// Normalization heard: the held-out sentences (test/synth/text/normalize-en.heldout.ts) rendered through the real
// service with the default voice (flite slt) and an espeak voice, and recognized by Debian's pocketsphinx. Each
// sentence is rendered twice, as written and as its reference spoken form; a sentence is misread by ear when the
// written form is heard with more word errors than the spoken one (the recognizer's own errors cancel out). The
// engines run natively on the written text (Debian's flite and espeak-ng CLIs) show what they would read by
// themselves. pocketsphinx hears espeak-ng's own voices badly (its en-us male and the service's f3/f4 variants
// come out at 80-90 % WER even on plain sentences; the f2 variant does not), so espeak is also heard through
// Debian's espeak-ng with the f2 variant, given the text the service would give its engine (/v1/phonemize's
// `normalized`). Not part of `npm run bench` (about 15 minutes on two busy cores):
//   node --import tsx bench/normalization-wer.ts            the held-out split
//   node --import tsx bench/normalization-wer.ts --dev      the development corpus's sentences instead
//   node --import tsx bench/normalization-wer.ts --families the held-out split of issue 43's error families
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CORPUS } from '../test/synth/text/normalize-en.corpus.ts';
import { FAMILIES_HELD_OUT } from '../test/synth/text/normalize-en.families-heldout.ts';
import { HELD_OUT } from '../test/synth/text/normalize-en.heldout.ts';
import { request } from './http-client.ts';
import { table } from './report.ts';
import { recognize, wordErrors } from './sections/wer.ts';
import { startService } from './service.ts';

const run = promisify(execFile);
const RATE = 16_000;

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

const to16k = (from: string, to: string) => run('sox', ['-D', from, '-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer', to]);

interface Sentence {
  written: string;
  spoken: readonly string[];
}

const dev = process.argv.includes('--dev');
const families = process.argv.includes('--families');
// Every fourth sentence of the development corpus with at least four words (the recognizer needs some context).
const SENTENCES: readonly Sentence[] = dev
  ? CORPUS.filter((p) => p.written.split(/\s+/).length >= 4)
      .filter((_, i) => i % 4 === 0)
      .map((p) => ({ written: p.written, spoken: [p.spoken] }))
  : families
    ? FAMILIES_HELD_OUT
    : HELD_OUT;

interface System {
  name: string;
  /** The text the engine is given for a written sentence (the written text itself by default). */
  prepare?: (written: string) => Promise<string>;
  render: (text: string, out: string) => Promise<boolean>;
  /** Also render the reference spoken form, to tell normalization errors from recognition errors. */
  reference: boolean;
}

async function main(): Promise<void> {
  for (const tool of ['pocketsphinx_batch', 'flite', 'espeak-ng', 'sox']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is not installed (apt-get install pocketsphinx pocketsphinx-en-us flite espeak-ng sox)`);
  }
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the service failed');
  const service = await startService();
  const dir = await mkdtemp(join(tmpdir(), 'voxsmith-norm-wer-'));
  try {
    const speak =
      (voice: string) =>
      async (text: string, out: string): Promise<boolean> => {
        const r = await request(`${service.base}/v1/speak`, {
          method: 'POST',
          headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text, voice_id: voice, format: 'wav' }),
          keepBody: true,
        });
        if (r.status !== 200) return false;
        await writeFile(out, r.body());
        return true;
      };
    const normalized = async (written: string): Promise<string> => {
      const r = await request(`${service.base}/v1/phonemize`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: written, voice_id: 'espeak-en-us-female-1' }),
        keepBody: true,
      });
      return (JSON.parse(r.text()) as { normalized: string }).normalized;
    };
    // On stdin: a text that starts with "-" would be taken for an option.
    const espeakCli = async (t: string, out: string): Promise<boolean> =>
      spawnSync('espeak-ng', ['-v', 'en-us+f2', '-w', out, '--stdin'], { input: t }).status === 0;
    const systems: System[] = [
      { name: 'service, default voice (flite slt)', render: speak('default'), reference: true },
      { name: 'service, espeak en-us (f3)', render: speak('espeak-en-us-female-1'), reference: true },
      { name: "espeak-ng en-us+f2 on the service's normalized text", prepare: normalized, render: espeakCli, reference: true },
      {
        name: 'flite CLI on the written text',
        render: (t, out) => run('flite', ['-voice', 'slt', '-t', t, '-o', out]).then(() => true),
        reference: false,
      },
      { name: 'espeak-ng en-us+f2 CLI on the written text', render: espeakCli, reference: false },
    ];
    const ids: string[] = [];
    for (const [s, system] of systems.entries()) {
      for (const [i, sentence] of SENTENCES.entries()) {
        const given = system.prepare ? await system.prepare(sentence.written) : sentence.written;
        for (const [kind, text] of system.reference
          ? ([
              ['w', given],
              ['r', sentence.spoken[0]],
            ] as const)
          : ([['w', given]] as const)) {
          const id = `${s}-${kind}-${i}`;
          const raw = join(dir, `raw-${id}.wav`);
          if (await system.render(text, raw)) {
            await to16k(raw, join(dir, `${id}.wav`));
            ids.push(id);
          }
        }
      }
    }
    // In batches: one pocketsphinx run is cut off after five minutes, and 300 files take longer on a busy machine.
    const heard = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 60) {
      for (const [id, hyp] of await recognize(dir, ids.slice(i, i + 60))) heard.set(id, hyp);
    }
    const errorsOf = (id: string, sentence: Sentence): number =>
      Math.min(...sentence.spoken.map((ref) => wordErrors(words(ref), words(heard.get(id) ?? ''))));
    const rows: string[][] = [];
    const summary: string[][] = [];
    for (const [s, system] of systems.entries()) {
      let refWords = 0;
      let written = 0;
      let reference = 0;
      const worse: string[] = [];
      for (const [i, sentence] of SENTENCES.entries()) {
        const n = Math.min(...sentence.spoken.map((r) => words(r).length));
        refWords += n;
        const w = errorsOf(`${s}-w-${i}`, sentence);
        written += w;
        if (system.reference) {
          const r = errorsOf(`${s}-r-${i}`, sentence);
          reference += r;
          if (w > r) {
            worse.push(sentence.written);
            rows.push([
              system.name,
              sentence.written,
              `${heard.get(`${s}-w-${i}`) ?? ''} (${w})`,
              `${heard.get(`${s}-r-${i}`) ?? ''} (${r})`,
            ]);
          }
        }
      }
      const pct = (e: number) => `${((100 * e) / refWords).toFixed(1)} %`;
      summary.push([
        system.name,
        pct(written),
        system.reference ? pct(reference) : '',
        system.reference ? `${worse.length} / ${SENTENCES.length} (${((100 * worse.length) / SENTENCES.length).toFixed(1)} %)` : '',
      ]);
    }
    process.stdout.write(
      `# Normalization heard by pocketsphinx (${dev ? 'development corpus' : families ? 'held-out split of the error families' : 'held-out split'}, ${SENTENCES.length} sentences)\n\n`,
    );
    process.stdout.write(`${table(['system', 'WER, written', 'WER, spoken reference', 'heard worse than the reference'], summary)}\n\n`);
    process.stdout.write(`${table(['system', 'sentence', 'written form heard (errors)', 'spoken form heard (errors)'], rows)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await service.stop();
  }
}

await main();
