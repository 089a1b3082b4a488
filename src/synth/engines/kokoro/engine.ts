// Kokoro-82M: espeak-ng IPA → Kokoro's vocabulary → onnxruntime with the voice's style row for that length.
import type { Engine, EngineChunk, SynthesisOptions } from '../../engine.ts';
import { engineRate, UnknownVoiceError } from '../../engine.ts';
import { fileKey, findKokoroVoice, kokoroLanguage, neuralFiles, neuralModels } from '../../neural-models.ts';
import type { VoiceSpec } from '../../voice-spec.ts';
import { phonemize } from '../espeak/phonemize.ts';
import { checkRenderLength, clip, firstOutput, onnxRuntime, runSession, sessionFor } from '../onnx.ts';
import { finalMarkOf } from '../piper/ids.ts';
import { estimateWordTimes } from '../word-times.ts';
import { KOKORO_SAMPLE_RATE, kokoroInfo } from './info.ts';
import { styleRow } from './style.ts';
import { tiePhoneme } from './misaki-ipa.ts';
import { kokoroTokens } from './tokens.ts';
import { readStyleVectors } from './voices-file.ts';

class KokoroEngine implements Engine {
  readonly info = kokoroInfo;
  /** Style vectors per voices file: every voice of a bundle together is ~27 MB (54 voices x 510 x 256 floats). */
  private readonly vectors = new Map<string, Promise<Map<string, Float32Array>>>();

  private styles(path: string, revision: string): Promise<Map<string, Float32Array>> {
    const key = fileKey(path, revision);
    let p = this.vectors.get(key);
    if (!p) {
      // Files removed or replaced since are dropped first: their vectors are ~27 MB each.
      const live = neuralFiles();
      for (const k of this.vectors.keys()) if (!live.has(k)) this.vectors.delete(k);
      p = readStyleVectors(path);
      p.catch(() => this.vectors.delete(key));
      this.vectors.set(key, p);
    }
    return p;
  }

  async *synthesize(text: string, voice: VoiceSpec, options: SynthesisOptions): AsyncGenerator<EngineChunk> {
    const found = findKokoroVoice(voice.base);
    if (!found) throw new UnknownVoiceError('kokoro', voice.base);
    const { bundle } = found;
    const language = kokoroLanguage(found.voice);
    if (!language) throw new UnknownVoiceError('kokoro', voice.base);
    const rate = engineRate(kokoroInfo, voice, options.speed);
    const english = language.espeak.startsWith('en');
    // English is read as misaki reads what its lexicon lacks: espeak's phonemes, tied, in misaki's symbols.
    const phonemes = await phonemize(text, language.espeak, english ? tiePhoneme : undefined);
    const { tokens, wordStarts } = kokoroTokens(
      phonemes,
      finalMarkOf(text),
      english ? { british: language.espeak === 'en-gb' } : undefined,
    );
    if (options.signal?.aborted || tokens.length === 0) return;
    const [ort, session, vectors] = await Promise.all([
      onnxRuntime(),
      sessionFor(bundle.onnxPath, bundle.revision),
      this.styles(bundle.voicesPath, bundle.revision),
    ]);
    const style = styleRow(vectors, found.voice, voice.style, tokens.length);
    const padded = [0, ...tokens, 0];
    const results = await runSession(session, {
      // kokoro-onnx's export names it `tokens`, other exports `input_ids`.
      [session.inputNames.includes('input_ids') ? 'input_ids' : 'tokens']: new ort.Tensor('int64', BigInt64Array.from(padded, BigInt), [
        1,
        padded.length,
      ]),
      style: new ort.Tensor('float32', style, [1, style.length]),
      speed: new ort.Tensor('float32', Float32Array.from([rate]), [1]),
    });
    if (options.signal?.aborted) return;
    const output = firstOutput(session, results);
    checkRenderLength(`kokoro ${bundle.key}`, output.length, KOKORO_SAMPLE_RATE, padded.length, 1 / rate);
    const samples = clip(output);
    yield {
      samples,
      sampleRate: KOKORO_SAMPLE_RATE,
      words: estimateWordTimes(
        text,
        wordStarts.map((s) => s + 1),
        padded.length,
        samples.length / KOKORO_SAMPLE_RATE,
      ),
    };
  }

  async warmUp(): Promise<void> {
    if (neuralModels().kokoro.length === 0) return;
    await Promise.all([phonemize('ready', 'en-us'), onnxRuntime().catch(() => undefined)]);
  }
}

export async function createEngine(): Promise<Engine> {
  return new KokoroEngine();
}
