// ffprobe/ffmpeg helpers for the audio tests (Debian: apt-get install -y ffmpeg).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function has(cmd: string): boolean {
  return spawnSync(cmd, ['-version'], { stdio: 'ignore' }).status === 0;
}

export const HAS_FFMPEG = has('ffprobe') && has('ffmpeg');
/** For node:test's `skip` option: false when ffmpeg is there, else the reason. */
export const SKIP_NO_FFMPEG: false | string = HAS_FFMPEG ? false : 'ffprobe/ffmpeg not installed (apt-get install -y ffmpeg)';

export interface Probe {
  codec: string;
  sampleRate: number;
  channels: number;
  /** undefined when ffprobe reports N/A */
  duration: number | undefined;
  formatName: string;
}

export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), 'voxsmith-audio-'));
  file(name: string, bytes: Uint8Array): string {
    const p = join(this.path, name);
    writeFileSync(p, bytes);
    return p;
  }
  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

export function probe(path: string, extraArgs: string[] = []): Probe {
  const r = spawnSync(
    'ffprobe',
    [
      '-v',
      'error',
      ...extraArgs,
      '-show_entries',
      'stream=codec_name,sample_rate,channels:format=duration,format_name',
      '-of',
      'json',
      path,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`ffprobe failed on ${path}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    streams: Array<{ codec_name: string; sample_rate: string; channels: number }>;
    format: { duration?: string; format_name: string };
  };
  const s = j.streams[0];
  const d = j.format.duration;
  return {
    codec: s.codec_name,
    sampleRate: Number(s.sample_rate),
    channels: s.channels,
    duration: d === undefined || d === 'N/A' ? undefined : Number(d),
    formatName: j.format.format_name,
  };
}

/** Decodes with ffmpeg to mono float32 at `rate` (the file's own rate when omitted); stderr must be clean. */
export function ffmpegDecode(path: string, opts: { rate?: number; inputArgs?: string[]; filter?: string } = {}): Float32Array {
  const r = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      ...(opts.inputArgs ?? []),
      '-i',
      path,
      ...(opts.filter ? ['-af', opts.filter] : []),
      '-ac',
      '1',
      ...(opts.rate ? ['-ar', String(opts.rate)] : []),
      '-f',
      'f32le',
      '-',
    ],
    { maxBuffer: 1 << 28 },
  );
  if (r.status !== 0 || r.stderr.length > 0) throw new Error(`ffmpeg decode of ${path}: ${r.stderr.toString()}`);
  const b = r.stdout;
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** Runs an encoding command (ffmpeg, sox, espeak-ng ...) and returns stdout; throws on failure. */
export function run(cmd: string, args: string[]): Buffer {
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr?.toString()}`);
  return r.stdout;
}
