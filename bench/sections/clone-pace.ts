// Section 14: whether a clone keeps its speaker's pace on new text. Festival's HTS slt and kal voices (Debian's
// festvox-us-slt-hts and festvox-kallpc16k) read a pause-rich passage, which is uploaded to /v1/forge/clone with
// and without its transcript; each clone then reads ten sentences the passage does not contain through
// /v1/speak, and so does the speaker. Same words on both sides: the seconds that sound (pauses over 120 ms left
// out) compare directly, and so do the median pitches.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NEW_SENTENCES, PAUSE_RICH_PASSAGE } from '../../test/forge/pace-texts.ts';
import { measureReadings } from '../../test/forge/readings.ts';
import type { Section } from '../report.ts';
import { fixed } from '../stats.ts';

const run = promisify(execFile);

const SPEAKERS = [
  { name: 'festival HTS slt', eval: '(voice_cmu_us_slt_arctic_hts)', dir: '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts' },
  { name: 'festival kal', eval: '(voice_kal_diphone)', dir: '/usr/share/festival/voices/english/kal_diphone' },
] as const;

async function festival(dir: string, voice: string, text: string, name: string): Promise<Uint8Array> {
  const src = join(dir, `${name}.txt`);
  const out = join(dir, `${name}.wav`);
  await writeFile(src, text);
  await run('text2wave', ['-eval', voice, src, '-o', out]);
  return new Uint8Array(await readFile(out));
}

async function cloneOf(
  base: string,
  key: string,
  passage: Uint8Array,
  name: string,
  transcript?: string,
): Promise<{ id: string; baseVoice: string }> {
  const form = new FormData();
  form.append('audio', new Blob([passage], { type: 'audio/wav' }), 'passage.wav');
  form.append('name', name);
  form.append('language', 'en');
  if (transcript) form.append('transcript', transcript);
  const res = await fetch(`${base}/v1/forge/clone`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  if (res.status !== 201) throw new Error(`clone ${name}: ${res.status} ${await res.text()}`);
  const { voice } = (await res.json()) as { voice: { id: string; features: { base_voice: string } } };
  return { id: voice.id, baseVoice: voice.features.base_voice };
}

async function speak(base: string, key: string, voice: string, text: string): Promise<Uint8Array> {
  const res = await fetch(`${base}/v1/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: voice, format: 'wav' }),
  });
  if (res.status !== 200) throw new Error(`speak ${voice}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

export async function clonePace(base: string, key: string): Promise<Section> {
  const title = '14. Clone pace on new text: clones of festival voices reading 10 sentences not in their sample';
  if (!existsSync('/usr/bin/text2wave') || SPEAKERS.some((s) => !existsSync(s.dir))) {
    const line = 'Skipped: festival and its voices are not installed (apt-get install festival festvox-us-slt-hts festvox-kallpc16k).';
    return { title, notes: [line], headers: [], rows: [], summary: [['clone pace on new text', 'skipped (no festival)']] };
  }
  const dir = await mkdtemp(join(tmpdir(), 'voxsmith-clone-pace-'));
  try {
    const rows: string[][] = [];
    let worst = 0;
    for (const speaker of SPEAKERS) {
      const passage = await festival(dir, speaker.eval, PAUSE_RICH_PASSAGE, 'passage');
      const own: Uint8Array[] = [];
      for (const [i, text] of NEW_SENTENCES.entries()) own.push(await festival(dir, speaker.eval, text, `s${i}`));
      const theirs = await measureReadings(own);
      for (const transcript of [false, true]) {
        const clone = await cloneOf(base, key, passage, `${speaker.name} ${transcript}`, transcript ? PAUSE_RICH_PASSAGE : undefined);
        const readings: Uint8Array[] = [];
        for (const text of NEW_SENTENCES) readings.push(await speak(base, key, clone.id, text));
        const mine = await measureReadings(readings);
        // Above 1: the clone takes longer over the same words than its speaker.
        const ratio = mine.soundingSeconds / theirs.soundingSeconds;
        worst = Math.max(worst, Math.abs(ratio - 1));
        // Owned voices count against the key's quota.
        await fetch(`${base}/api/voices/${clone.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
        rows.push([
          speaker.name,
          transcript ? 'yes' : 'no',
          clone.baseVoice,
          fixed(theirs.soundingSeconds, 2),
          fixed(mine.soundingSeconds, 2),
          fixed(ratio, 3),
          fixed(12 * Math.log2(mine.pitchHz / theirs.pitchHz), 2),
        ]);
      }
    }
    return {
      title,
      notes: [
        `The sample: a ${PAUSE_RICH_PASSAGE.split(/\s+/).length}-word passage with a pause at every comma and sentence end (test/forge/pace-texts.ts),`,
        'read by the festival voice. Each clone and the speaker read the same 10 new sentences, one request each. "Sounding" is the',
        'time that sounds, pauses over 120 ms left out; the ratio is the clone\u2019s over the speaker\u2019s (1 = same pace; target within',
        `0.90-1.10), pitch in semitones from the speaker's median. **Worst pace error: ${fixed(worst * 100, 1)} %.**`,
      ],
      headers: ['speaker', 'transcript', 'base', 'speaker sounding s', 'clone sounding s', 'pace ratio', 'pitch st'],
      rows,
      summary: [['clone pace on new text, worst of slt/kal with and without transcript (target ≤ 10 %)', `${fixed(worst * 100, 1)} %`]],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
