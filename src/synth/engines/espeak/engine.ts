import type { Engine, EngineChunk, EngineWord, SynthesisOptions } from '../../engine.ts';
import { engineRate, UnknownVoiceError } from '../../engine.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { ESPEAK_BASE_WPM, ESPEAK_SAMPLE_RATE, espeakInfo, findEspeakVariant, findEspeakVoice } from './info.ts';
import { ESPEAK_VARIANT_DIR, loadEspeakModule, type EspeakRawModule, type EspeakRawWorker } from './module.ts';
import { FreshEspeak, newEspeakWorker } from './fresh-state.ts';
import { hasControls, renderVariant } from './variant.ts';
import { WordEvents } from './word-events.ts';

/** Words per minute for a rate multiplier; espeak ignores values outside 80..450, so they are clamped. */
export function espeakWpm(rate: number): number {
  const [min, max] = espeakInfo.capabilities.speedRange;
  return Math.round(ESPEAK_BASE_WPM * Math.min(max, Math.max(min, rate)));
}

class EspeakEngine implements Engine {
  readonly info = espeakInfo;
  private readonly written = new Set<string>();
  /** Each synthesis starts from the same state: what this thread spoke before leaves no trace in the audio. */
  private readonly fresh: FreshEspeak;

  constructor(
    private readonly m: EspeakRawModule,
    private readonly worker: EspeakRawWorker,
  ) {
    this.fresh = new FreshEspeak(m, worker, findEspeakVoice('en-us')?.identifier ?? 'en');
  }

  /** The set_voice name for a spec, writing a variant file first when controls ask for one. */
  voiceName(voice: VoiceSpec): string {
    const entry = findEspeakVoice(voice.base);
    if (!entry) throw new UnknownVoiceError('espeak', voice.base);
    let variant: string | undefined;
    if (voice.variant !== undefined && voice.variant !== '') {
      variant = findEspeakVariant(voice.variant);
      if (!variant) throw new UnknownVoiceError('espeak', `${voice.base}+${voice.variant}`);
    }
    if (hasControls(voice.controls) && voice.controls) {
      const shipped = variant ? this.m.FS.readFile(`${ESPEAK_VARIANT_DIR}/${variant}`, { encoding: 'utf8' }) : undefined;
      const rendered = renderVariant(voice.controls, shipped);
      if (!this.written.has(rendered.name)) {
        this.m.FS.writeFile(`${ESPEAK_VARIANT_DIR}/${rendered.name}`, rendered.text);
        this.written.add(rendered.name);
      }
      variant = rendered.name;
    }
    return variant ? `${entry.identifier}+${variant}` : entry.identifier;
  }

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const { signal, checkpoint } = options;
    const name = this.voiceName(voice);
    if (signal?.aborted) return;
    // espeak keeps one current voice per instance, so select and render in the same synchronous step.
    if (!this.fresh.begin(name, text)) throw new UnknownVoiceError('espeak', name);
    this.worker.set_rate(espeakWpm(engineRate(espeakInfo, voice, options.speed)));
    const chunks: EngineChunk[] = [];
    // Handed over from inside the render when the host can send it at once; otherwise yielded after it.
    const hand = options.stream ?? ((chunk: EngineChunk) => chunks.push(chunk));
    const offsets = codePointOffsets(text);
    const events = new WordEvents(text);
    let pending: EngineWord[] = [];
    let lastWordAt = -1;
    this.worker.synthesize(this.fresh.cString(text), (samples, evs) => {
      for (const ev of evs) {
        if (ev.type === 'phoneme') events.phoneme(ev.audio_position / 1000, typeof ev.id === 'string' ? ev.id : '');
        if (ev.type !== 'word' || ev.text_position === lastWordAt) continue;
        lastWordAt = ev.text_position;
        const start = offsets[Math.min(offsets.length - 1, Math.max(0, ev.text_position - 1))];
        const end = offsets[Math.min(offsets.length - 1, Math.max(0, ev.text_position - 1 + ev.word_length))];
        pending.push(...events.word(start, end - start, ev.audio_position / 1000));
      }
      if (samples && samples.length > 0) {
        const f = new Float32Array(samples.length);
        for (let i = 0; i < samples.length; i++) f[i] = samples[i] / 32768;
        hand({ samples: f, sampleRate: ESPEAK_SAMPLE_RATE, ...(pending.length ? { words: pending } : {}) });
        pending = [];
      }
      checkpoint?.();
      return signal?.aborted === true;
    });
    pending.push(...events.end(signal?.aborted !== true));
    if (pending.length > 0) {
      hand({ samples: new Float32Array(0), sampleRate: ESPEAK_SAMPLE_RATE, words: pending });
    }
    for (const c of chunks) {
      if (signal?.aborted) return;
      yield c;
    }
  }

  async warmUp(): Promise<void> {
    // V8 tiers wasm up only after code has run a while: the first runs are 10-20x slower than later ones
    // (measured: ~400 ms, then ~20 ms for 4 s of speech), so a request should never be among them.
    const text = 'Warming up the speech engine: one, two, three. Is it ready yet? Yes, it is ready now!';
    for (let i = 0; i < 8; i++) {
      const voice: VoiceSpec = { engine: 'espeak', base: i % 2 === 0 ? 'en-us' : 'de' };
      for await (const _ of this.synthesize(text, voice, { speed: 1 })) {
        // drain
      }
    }
  }
}

/** UTF-16 index of each code point (espeak counts code points, 1-based), plus the end of the text. */
function codePointOffsets(text: string): number[] {
  const out: number[] = [];
  let i = 0;
  for (const ch of text) {
    out.push(i);
    i += ch.length;
  }
  out.push(i);
  return out;
}

export async function createEngine(): Promise<Engine> {
  const m = await loadEspeakModule();
  return new EspeakEngine(m, newEspeakWorker(m));
}
