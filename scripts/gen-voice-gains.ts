// Generates src/synth/voice-gains.json: the loudness gain of every built-in voice at the default target,
// measured exactly as a worker thread measures a voice it meets first (voice-loudness.ts). Run again after
// changing an engine, the catalog, the reference sentence or the limiter:
//   node --import tsx scripts/gen-voice-gains.ts
// It prints how much the limiter takes from the voices at the default target, and refuses when it would cut any
// voice's highest peak by more than MAX_LIMIT_DB: the limiter would then flatten that voice's loud syllables.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../src/synth/registry.ts';
import { DEFAULT_LOUDNESS_TARGET_LUFS, gainKey, measureVoiceLevel, type GainTable } from '../src/synth/voice-loudness.ts';
import { BUILTIN_VOICES } from '../src/voices/builtin.ts';

const OUT = fileURLToPath(new URL('../src/synth/voice-gains.json', import.meta.url));

/** The bound on the limiter's deepest cut: MAX_PEAK_CUT_DB, and what a voice held at MAX_SHORTFALL_LU adds to it. */
const MAX_LIMIT_DB = 3.5;

const gains = new Map<string, number>();
const limited: { id: string; share: number; cut: number }[] = [];
let peakiest = { id: '', peakToLoudnessDb: -Infinity };
for (const voice of BUILTIN_VOICES) {
  const key = gainKey(voice.spec);
  if (gains.has(key)) continue;
  const level = await measureVoiceLevel(await loadEngine(voice.spec.engine), voice.spec, DEFAULT_LOUDNESS_TARGET_LUFS);
  if (level.peakToLoudnessDb > peakiest.peakToLoudnessDb) peakiest = { id: voice.id, peakToLoudnessDb: level.peakToLoudnessDb };
  if (level.maxReductionDb > 0.1) limited.push({ id: voice.id, share: level.limitedShare, cut: level.maxReductionDb });
  // Kept whole: rounded to 0.01 dB, the default voice's samples moved by up to 3 LSB from a measured gain's,
  // enough to flip what a recognizer hears in a borderline word (the bench's WER check).
  gains.set(key, level.gainDb);
}
limited.sort((a, b) => b.cut - a.cut);
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
console.log(`peakiest voice ${peakiest.id}: true peak ${peakiest.peakToLoudnessDb.toFixed(2)} dB over its loudness`);
console.log(
  `limited at ${DEFAULT_LOUDNESS_TARGET_LUFS} LUFS: ${limited.length} of ${gains.size} voices; deepest cut ${limited[0]?.cut.toFixed(2) ?? 0} dB (${limited[0]?.id ?? '-'}), ` +
    `most frames ${pct(Math.max(0, ...limited.map((l) => l.share)))}, median frames ${pct(limited.map((l) => l.share).sort((a, b) => a - b)[limited.length >> 1] ?? 0)}`,
);
const over = limited.filter((l) => l.cut > MAX_LIMIT_DB);
if (over.length > 0) {
  console.error(`the limiter cuts ${over.map((l) => `${l.id} by ${l.cut.toFixed(2)} dB`).join(', ')}: lower DEFAULT_LOUDNESS_TARGET_LUFS`);
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
