// Piper (VITS) voices: espeak-ng IPA clause by clause → the model's phoneme ids, by piper-phonemize's rules (one
// model run per sentence, as Piper runs them) → onnxruntime → audio at the model's rate. Inference runs on
// onnxruntime's own thread, so acks and cancels keep flowing while a sentence renders.
import type { Engine, EngineChunk, SynthesisOptions } from '../../engine.ts';
import { engineRate, UnknownVoiceError } from '../../engine.ts';
import { findPiperVoice, neuralModels } from '../../neural-models.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { phonemize } from '../espeak/phonemize.ts';
import { checkRenderLength, clip, firstOutput, onnxRuntime, runSession, sessionFor } from '../onnx.ts';
import { estimateWordTimes } from '../word-times.ts';
import { piperIds } from './ids.ts';
import { piperInfo } from './info.ts';

class PiperEngine implements Engine {
  readonly info = piperInfo;

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const found = findPiperVoice(voice.base);
    if (!found) throw new UnknownVoiceError('piper', voice.base);
    const { model, speaker } = found;
    const rate = engineRate(piperInfo, voice, options.speed);
    const sentences = await piperIds(text, model.espeakVoice, model.phonemeIdMap);
    if (options.signal?.aborted || sentences.length === 0) return;
    const [ort, session] = await Promise.all([onnxRuntime(), sessionFor(model.onnxPath, model.revision)]);
    // Each sentence times the text's words it speaks (as many as it has spoken words; the last takes the rest).
    const words = [...text.matchAll(/\S+/g)];
    let wordAt = 0;
    let elapsed = 0;
    for (const [n, { ids, wordStarts }] of sentences.entries()) {
      const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
        input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
        scales: new ort.Tensor('float32', Float32Array.from([model.noiseScale, model.lengthScale / rate, model.noiseW]), [3]),
      };
      if (session.inputNames.includes('sid')) {
        feeds.sid = new ort.Tensor('int64', BigInt64Array.from([BigInt(speaker?.id ?? 0)]), [1]);
      }
      const results = await runSession(session, feeds);
      if (options.signal?.aborted) return;
      const output = firstOutput(session, results);
      checkRenderLength(`piper ${model.key}`, output.length, model.sampleRate, ids.length, model.lengthScale / rate);
      const samples = clip(output);
      const seconds = samples.length / model.sampleRate;
      const last = n === sentences.length - 1;
      const take = last ? words.length - wordAt : Math.min(wordStarts.length, words.length - wordAt);
      const from = words[wordAt]?.index ?? text.length;
      const to = last ? text.length : (words[wordAt + take]?.index ?? text.length);
      wordAt += take;
      const timed = estimateWordTimes(text.slice(from, to), wordStarts, ids.length, seconds).map((w) => ({
        ...w,
        offset: w.offset + from,
        time: w.time + elapsed,
      }));
      elapsed += seconds;
      yield { samples, sampleRate: model.sampleRate, words: timed };
    }
  }

  async warmUp(): Promise<void> {
    // Sessions load on first use (memory is only spent on voices that are asked for); the phonemizer is
    // shared and small, so it is readied here when any Piper voice exists.
    const first = neuralModels().piper[0];
    if (!first) return;
    // With voices installed, the runtime itself (~30 MB, once per process) loads now rather than on a request.
    // A runtime that cannot load fails only the neural requests (with its reason), never the whole pool.
    await Promise.all([phonemize('ready', first.espeakVoice), onnxRuntime().catch(() => undefined)]);
  }
}

export async function createEngine(): Promise<Engine> {
  return new PiperEngine();
}
