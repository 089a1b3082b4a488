// What version of an engine and of a voice's files speaks a voice: a book's piece rendered by other code or
// other model files is other audio, so its stored copy must not stand in for it (jobs key pieces by this).
import { createRequire } from 'node:module';
import { neuralModels } from './neural-models.ts';
import type { VoiceSpec } from './voice-spec.ts';

const require = createRequire(import.meta.url);

/** The installed version of an npm package, or '' when it cannot be read. */
function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version?: string }).version ?? '';
  } catch {
    return '';
  }
}

let versions: Record<string, string> | null = null;

/** Engine code versions: the packages that run them (flite is compiled here, so this service's own version). */
function engineVersions(): Record<string, string> {
  if (versions) return versions;
  const own = (require('../../package.json') as { version: string }).version;
  const onnx = packageVersion('onnxruntime-node');
  const espeak = packageVersion('@echogarden/espeak-ng-emscripten');
  versions = { espeak: `${own}/${espeak}`, flite: own, piper: `${own}/${onnx}/${espeak}`, kokoro: `${own}/${onnx}/${espeak}` };
  return versions;
}

/** The engine's version and, for a neural voice, its model files' revision (size and modification time). */
export function voiceVersion(spec: VoiceSpec): string {
  const engine = engineVersions()[spec.engine] ?? '';
  const key = spec.base.split('/')[0];
  const models = neuralModels();
  const file =
    spec.engine === 'piper'
      ? models.piper.find((m) => m.key === key)?.revision
      : spec.engine === 'kokoro'
        ? models.kokoro.find((b) => b.key === key)?.revision
        : undefined;
  return file === undefined ? engine : `${engine}#${file}`;
}
