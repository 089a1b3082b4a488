// The `info` answer to `describe` (rhasspy/wyoming info.py): one TTS program listing every voice.
import type { Voice } from '../voices/voice.ts';

const ATTRIBUTION = { name: 'Voxsmith', url: 'https://github.com/voxsmith' };

/** The `info` event's data for these voices. */
export function ttsInfo(voices: readonly Voice[], version: string): Record<string, unknown> {
  return {
    asr: [],
    tts: [
      {
        name: 'voxsmith',
        attribution: ATTRIBUTION,
        installed: true,
        description: 'Voxsmith speech synthesis',
        version,
        supports_synthesize_streaming: true,
        voices: voices.map((v) => ({
          name: v.id,
          attribution: ATTRIBUTION,
          installed: true,
          description: `${v.name} (${v.language_name}, ${v.gender}, ${v.engine})`,
          version,
          languages: [v.language],
          // One speaker per voice: a multi-speaker model is already one voice per speaker here.
          speakers: null,
        })),
      },
    ],
    handle: [],
    intent: [],
    wake: [],
    mic: [],
    snd: [],
  };
}
