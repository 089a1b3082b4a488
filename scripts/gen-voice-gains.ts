// Generates src/synth/voice-gains.json: the loudness gain of every built-in voice at the default target,
// measured exactly as a worker thread measures a voice it meets first (voice-loudness.ts). Run again after
// changing an engine, the catalog, the reference sentence or the limiter:
//   node --import tsx scripts/gen-voice-gains.ts
// It refuses when the peakiest voice no longer fits under the true-peak ceiling at the default target: the
// limiter would then flatten that voice on every loud syllable, and the target must come down.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../src/synth/registry.ts';
import {
  DEFAULT_LOUDNESS_TARGET_LUFS,
  gainKey,
  measureVoiceLevel,
  PEAK_MARGIN_DB,
  TRUE_PEAK_CEILING_DB,
  type GainTable,
} from '../src/synth/voice-loudness.ts';
import { BUILTIN_VOICES } from '../src/voices/builtin.ts';

const OUT = fileURLToPath(new URL('../src/synth/voice-gains.json', import.meta.url));

const gains = new Map<string, number>();
let peakiest = { id: '', peakToLoudnessDb: -Infinity };
for (const voice of BUILTIN_VOICES) {
  const key = gainKey(voice.spec);
  if (gains.has(key)) continue;
  const { gainDb: db, peakToLoudnessDb } = await measureVoiceLevel(
    await loadEngine(voice.spec.engine),
    voice.spec,
    DEFAULT_LOUDNESS_TARGET_LUFS,
  );
  if (peakToLoudnessDb > peakiest.peakToLoudnessDb) peakiest = { id: voice.id, peakToLoudnessDb };
  // Kept whole: rounded to 0.01 dB, the default voice's samples moved by up to 3 LSB from a measured gain's,
  // enough to flip what a recognizer hears in a borderline word (the bench's WER check).
  gains.set(key, db);
}
const highest = TRUE_PEAK_CEILING_DB - PEAK_MARGIN_DB - peakiest.peakToLoudnessDb;
console.log(
  `peakiest voice ${peakiest.id}: true peak ${peakiest.peakToLoudnessDb.toFixed(2)} dB over its loudness; targets up to ${highest.toFixed(2)} LUFS leave it unlimited`,
);
if (DEFAULT_LOUDNESS_TARGET_LUFS > highest) {
  console.error(
    `DEFAULT_LOUDNESS_TARGET_LUFS (${DEFAULT_LOUDNESS_TARGET_LUFS}) is above ${highest.toFixed(2)}: lower it in src/synth/voice-loudness.ts`,
  );
  process.exit(1);
}
const table: GainTable = {
  target_lufs: DEFAULT_LOUDNESS_TARGET_LUFS,
  gains_db: Object.fromEntries([...gains].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
};
// One voice per line: a change to one voice is a one-line diff.
const lines = Object.entries(table.gains_db).map(([k, v]) => `    ${JSON.stringify(k)}: ${v}`);
writeFileSync(OUT, `{\n  "target_lufs": ${table.target_lufs},\n  "gains_db": {\n${lines.join(',\n')}\n  }\n}\n`);
console.log(`${gains.size} voices written to ${OUT}`);
