import type { StyleMix } from '../../voice-spec.ts';
import { STYLE_DIM, STYLE_ROWS } from './voices-file.ts';

/** Row `row` of a voice's style (or of a blend of voices), as Kokoro's `style` input [1, 256]. */
export function styleRow(vectors: ReadonlyMap<string, Float32Array>, voice: string, mix: StyleMix | undefined, row: number): Float32Array {
  const r = Math.min(STYLE_ROWS - 1, Math.max(0, row));
  if (!mix) {
    const v = vectors.get(voice);
    if (!v) throw new Error(`kokoro: no style vector ${voice}`);
    return v.slice(r * STYLE_DIM, (r + 1) * STYLE_DIM);
  }
  const out = new Float32Array(STYLE_DIM);
  mix.voices.forEach((name, k) => {
    const v = vectors.get(name);
    const w = mix.weights[k];
    if (!v || !w || w.length !== STYLE_DIM) throw new Error(`kokoro: the style blend names ${name}, which this voices file lacks`);
    for (let i = 0; i < STYLE_DIM; i++) out[i] += w[i] * v[r * STYLE_DIM + i];
  });
  return out;
}
