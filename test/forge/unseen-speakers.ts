// Speakers the forge was never tuned on, from Debian packages: festival's HTS voice (festvox-us-slt-hts),
// its American male diphone voice (festvox-kallpc16k), and a LibriVox reader whose recordings ship as
// pocketsphinx's test data (pocketsphinx-testdata), with their transcripts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FESTIVAL_VOICES = {
  'festival-slt-hts': { eval: '(voice_cmu_us_slt_arctic_hts)', dir: '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts' },
  'festival-kal': { eval: '(voice_kal_diphone)', dir: '/usr/share/festival/voices/english/kal_diphone' },
} as const;
export type FestivalSpeaker = keyof typeof FESTIVAL_VOICES;

function has(cmd: string, arg: string): boolean {
  return spawnSync(cmd, [arg], { stdio: 'ignore' }).status === 0;
}

/** Debian: apt-get install -y festival festvox-us-slt-hts festvox-kallpc16k */
export const SKIP_NO_FESTIVAL: false | string =
  existsSync('/usr/bin/text2wave') && Object.values(FESTIVAL_VOICES).every((v) => existsSync(v.dir)) && has('ffmpeg', '-version')
    ? false
    : 'festival, its slt HTS and kal voices and ffmpeg are needed (apt-get install -y festival festvox-us-slt-hts festvox-kallpc16k ffmpeg)';

/** A WAV of one of festival's voices reading `text`. */
export function recordFestival(speaker: FestivalSpeaker, text: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-festival-'));
  try {
    const src = join(dir, 'text.txt');
    const out = join(dir, 'speech.wav');
    writeFileSync(src, text);
    const r = spawnSync('text2wave', ['-eval', FESTIVAL_VOICES[speaker].eval, src, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`text2wave ${speaker}: ${r.stderr?.toString()}`);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

/** Debian: apt-get install -y pocketsphinx-testdata */
export const SKIP_NO_LIBRIVOX: false | string =
  existsSync(join(LIBRIVOX_DIR, 'transcription')) && has('ffmpeg', '-version')
    ? false
    : 'the LibriVox recordings of pocketsphinx-testdata and ffmpeg are needed (apt-get install -y pocketsphinx-testdata ffmpeg)';

export interface Reading {
  wav: Buffer;
  text: string;
}

/**
 * Clips of the LibriVox reader (Sense and Sensibility, read by a man), joined into one WAV, with what they
 * say. The transcripts are lower case without punctuation; the words are what matter here.
 */
export function librivoxReading(clips: readonly string[]): Reading {
  const transcripts = new Map<string, string>();
  for (const line of readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8').split('\n')) {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)\s*$/.exec(line);
    if (m) transcripts.set(m[2], m[1]);
  }
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-librivox-'));
  try {
    const list = join(dir, 'list.txt');
    writeFileSync(list, clips.map((c) => `file '${join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${c}.wav`)}'\n`).join(''));
    const out = join(dir, 'joined.wav');
    const r = spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', out], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (r.status !== 0) throw new Error(`ffmpeg concat: ${r.stderr?.toString()}`);
    const text = clips.map((c) => {
      const t = transcripts.get(`sense_and_sensibility_01_austen_64kb-${c}`);
      if (!t) throw new Error(`no transcript for clip ${c}`);
      return `${t}.`;
    });
    return { wav: readFileSync(out), text: text.join(' ') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
