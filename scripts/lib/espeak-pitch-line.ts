// The `pitch` line espeak-ng applies to a voice, read from the files of the bundled build: for the forge
// calibration generator only (it loads the wasm module on the main thread, which the service never does).
import { findEspeakVoice } from '../../src/synth/engines/espeak/info.ts';
import { ESPEAK_LANG_DIR, ESPEAK_VARIANT_DIR, loadEspeakModule, type EspeakRawModule } from '../../src/synth/engines/espeak/module.ts';
import { ESPEAK_DEFAULT_PITCH, pitchLine } from '../../src/synth/engines/espeak/variant.ts';
import type { VoiceSpec } from '../../src/synth/voice-spec.ts';

function readOrEmpty(m: EspeakRawModule, path: string): string {
  try {
    return m.FS.readFile(path, { encoding: 'utf8' });
  } catch {
    return '';
  }
}

/** A lookup of the pitch line for a spec: its variant's, else its language file's, else espeak's default. */
export async function loadEspeakPitchLines(): Promise<(spec: VoiceSpec) => [number, number]> {
  const m = await loadEspeakModule();
  return (spec) => {
    if (spec.variant) {
      const line = pitchLine(readOrEmpty(m, `${ESPEAK_VARIANT_DIR}/${spec.variant}`));
      if (line) return line;
    }
    const entry = findEspeakVoice(spec.base);
    if (!entry) throw new Error(`unknown espeak voice ${spec.base}`);
    return pitchLine(readOrEmpty(m, `${ESPEAK_LANG_DIR}/${entry.identifier}`)) ?? [...ESPEAK_DEFAULT_PITCH];
  };
}
