// Generates src/synth/voice-gains.json: the loudness gain of every built-in voice at the default target,
// measured exactly as a worker thread measures a voice it meets first (voice-loudness.ts). Run again after
// changing an engine, the catalog, the reference sentence or the limiter:
//   node --import tsx scripts/gen-voice-gains.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../src/synth/registry.ts';
import { DEFAULT_LOUDNESS_TARGET_LUFS, gainKey, measureGainDb, type GainTable } from '../src/synth/voice-loudness.ts';
import { BUILTIN_VOICES } from '../src/voices/builtin.ts';

const OUT = fileURLToPath(new URL('../src/synth/voice-gains.json', import.meta.url));

const gains = new Map<string, number>();
for (const voice of BUILTIN_VOICES) {
  const key = gainKey(voice.spec);
  if (gains.has(key)) continue;
  const db = await measureGainDb(await loadEngine(voice.spec.engine), voice.spec, DEFAULT_LOUDNESS_TARGET_LUFS);
  // Kept whole: rounded to 0.01 dB, the default voice's samples moved by up to 3 LSB from a measured gain's,
  // enough to flip what a recognizer hears in a borderline word (the bench's WER check).
  gains.set(key, db);
}
const table: GainTable = {
  target_lufs: DEFAULT_LOUDNESS_TARGET_LUFS,
  gains_db: Object.fromEntries([...gains].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
};
// One voice per line: a change to one voice is a one-line diff.
const lines = Object.entries(table.gains_db).map(([k, v]) => `    ${JSON.stringify(k)}: ${v}`);
writeFileSync(OUT, `{\n  "target_lufs": ${table.target_lufs},\n  "gains_db": {\n${lines.join(',\n')}\n  }\n}\n`);
console.log(`${gains.size} voices written to ${OUT}`);
