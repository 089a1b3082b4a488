// Renders a voice to raw samples through the synthesizer's worker pool, for measuring it (the forge's fit,
// the calibration script): nothing here loads an engine.
import { sampleRateOf, type Synthesizer } from './synthesizer.ts';
import type { VoiceSpec } from './voice-spec.ts';

export const RENDER_RATE = sampleRateOf('f32');

/** The whole text as mono float32 samples at RENDER_RATE. */
export async function renderPcm(synth: Synthesizer, voice: VoiceSpec, text: string, signal?: AbortSignal): Promise<Float32Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of synth.speak({ text, voice, speed: 1, format: 'f32' }, signal)) {
    parts.push(chunk.bytes);
    total += chunk.bytes.length;
  }
  // A fresh buffer: aligned for the float view whatever the chunks' offsets, and transferable.
  const bytes = new Uint8Array(total - (total % 4));
  let at = 0;
  for (const p of parts) {
    const n = Math.min(p.length, bytes.length - at);
    bytes.set(p.subarray(0, n), at);
    at += n;
  }
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
