// Shared by the forge tests: speaker recordings made with Debian's flite and espeak-ng programs (not the
// project's engines, so a clone has to find its own way to the speaker), uploads, and measurements.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeUpload } from '../../src/audio/decode.ts';
import { measureSpeaker, type SpeakerFeatures } from '../../src/forge/speaker-features.ts';
import type { TestServer } from '../helpers/server.ts';

function has(cmd: string, arg: string): boolean {
  return spawnSync(cmd, [arg], { stdio: 'ignore' }).status === 0;
}

/** Debian: apt-get install -y flite espeak-ng ffmpeg */
export const SKIP_NO_SPEAKERS: false | string =
  has('flite', '-lv') && has('espeak-ng', '--version') && has('ffmpeg', '-version')
    ? false
    : 'flite, espeak-ng and ffmpeg programs are needed (apt-get install -y flite espeak-ng ffmpeg)';

/** Ordinary prose, unlike the forge's own fit text, so that a clone is judged on speech it was not fitted on. */
export const SAMPLE_TEXT =
  'The train to the coast leaves at half past eight, so we packed our bags the night before. ' +
  'My sister made sandwiches for everyone, and I carried the map, just in case the signal was lost again.';

export type Speaker = 'flite-kal' | 'flite-slt' | 'espeak-low' | 'espeak-high';

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr?.toString()}`);
}

/** A WAV recording of a known speaker reading `text`. */
export function recordSpeaker(speaker: Speaker, text = SAMPLE_TEXT): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-forge-'));
  try {
    const out = join(dir, 'speech.wav');
    if (speaker === 'flite-kal') run('flite', ['-voice', 'kal', '-t', text, '-o', out]);
    else if (speaker === 'flite-slt') run('flite', ['-voice', 'slt', '-t', text, '-o', out]);
    else if (speaker === 'espeak-low') run('espeak-ng', ['-v', 'en-us', '-p', '15', '-w', out, text]);
    else run('espeak-ng', ['-v', 'en-us+f3', '-p', '85', '-w', out, text]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Re-encodes audio with ffmpeg (`ext` picks the container: mp3, ogg, opus, flac, wav). */
export function transcode(input: Buffer, ext: string, args: string[] = []): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'voxsmith-forge-'));
  try {
    const src = join(dir, 'in.wav');
    const dst = join(dir, `out.${ext}`);
    writeFileSync(src, input);
    run('ffmpeg', ['-v', 'error', '-y', '-i', src, ...args, dst]);
    return readFileSync(dst);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureBytes(bytes: Uint8Array): Promise<SpeakerFeatures> {
  const d = await decodeUpload(bytes, { maxSeconds: 600 });
  const f = await measureSpeaker(d.samples, d.sampleRate);
  if (!f) throw new Error('no speech in the recording');
  return f;
}

export interface UploadOptions {
  name?: string;
  language?: string;
  fileName?: string;
  contentType?: string;
  /** Field name of the file part (default "audio"). */
  field?: string;
  transcript?: string;
}

/** POST /v1/forge/clone as multipart/form-data. */
export function uploadClone(s: TestServer, key: string, bytes: Uint8Array | null, opts: UploadOptions = {}): Promise<Response> {
  const form = new FormData();
  if (bytes)
    form.append(opts.field ?? 'audio', new Blob([bytes], { type: opts.contentType ?? 'audio/wav' }), opts.fileName ?? 'sample.wav');
  if (opts.name !== undefined) form.append('name', opts.name);
  if (opts.language !== undefined) form.append('language', opts.language);
  if (opts.transcript !== undefined) form.append('transcript', opts.transcript);
  return fetch(`${s.base}/v1/forge/clone`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
}

/** A voice speaking `text` through POST /v1/speak, as WAV bytes. */
export async function speak(s: TestServer, key: string, voiceId: string, text = SAMPLE_TEXT): Promise<Uint8Array> {
  const res = await s.request('/v1/speak', { json: { text, voice_id: voiceId, format: 'wav' }, bearer: key });
  if (res.status !== 200) throw new Error(`speak ${voiceId}: ${res.status} ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

export function semitonesBetween(a: number, b: number): number {
  return 12 * Math.log2(b / a);
}
