// A piscina worker: loads every engine once when the thread starts, then runs speak tasks, streaming
// encoded audio back on each task's own MessagePort with credit-based flow control.
import { BroadcastChannel, parentPort, receiveMessageOnPort, threadId, workerData } from 'node:worker_threads';
import { FORMATS, type EncodeFormat } from '../audio/encoders/index.ts';
import { useEspeakData } from './engines/espeak/module.ts';
import { FliteLibrary } from './engines/flite/library.ts';
import { installNeuralModels, mergeNeuralModels, neuralFiles, retainNeuralModels } from './neural-models.ts';
import { dropSessionsExcept } from './engines/onnx.ts';
import { renderSpeech, warmUpPipeline, warmVoice } from './pipeline.ts';
import { phonemizeText } from './phonemize.ts';
import { TextTooLongError } from './text/spoken-length.ts';
import { UnknownVoiceError } from './engine.ts';
import type {
  ControlMessage,
  NeuralRetain,
  SpeakResult,
  SpeakTask,
  StreamMessage,
  WorkerEvent,
  ResultOf,
  WorkerSettings,
  WorkerTask,
} from './protocol.ts';
import { ENGINE_IDS, loadEngine } from './registry.ts';
import { PieceTurns, slack } from './piece-turns.ts';
import { WarmTurns } from './warm-turns.ts';
import { CoreYield } from './core-yield.ts';
import { threadPriority } from './thread-priority.ts';
import { setLoudnessTarget } from './voice-loudness.ts';
import type { MarkTiming, WordTiming } from './speech.ts';

const settings = (workerData ?? {}) as WorkerSettings;
// The main thread scanned VOICES_DIR; this thread resolves neural voices against the same files. Models added
// later come with the tasks that use them; removed ones are announced on the channel, and their sessions let go.
if (settings.neural) installNeuralModels(settings.neural);
if (settings.neuralChannel) {
  const channel = new BroadcastChannel(settings.neuralChannel);
  channel.unref();
  channel.onmessage = (event) => {
    const msg = (event as { data?: NeuralRetain }).data;
    if (msg?.type !== 'retain') return;
    retainNeuralModels(new Set(msg.keys));
    dropSessionsExcept(neuralFiles());
  };
}
if (settings.flite) FliteLibrary.use(settings.flite);
if (settings.espeakData) useEspeakData(settings.espeakData);
if (settings.loudnessTargetLufs !== undefined) setLoudnessTarget(settings.loudnessTargetLufs);

const LATE_FORMATS: readonly EncodeFormat[] = ['flac'];
const EARLY_FORMATS = (Object.keys(FORMATS) as EncodeFormat[]).filter((f) => !LATE_FORMATS.includes(f));

/** The requests this thread interleaves take turns by need, piece by piece. */
const turns = new PieceTurns();

function announce(event: WorkerEvent): void {
  parentPort?.postMessage(event);
}

const warmTurns = settings.warmTurns ? new WarmTurns(settings.warmTurns) : undefined;
const coreYield = settings.coreYield ? new CoreYield(settings.coreYield, threadPriority()) : undefined;

// Started at import so the pool can report readiness before any request; warm-up spares the first
// request the slow, not yet optimised first runs of the wasm code. Threads take turns (warm-turns.ts).
void (async () => {
  let give = await warmTurns?.take();
  try {
    // Codecs first: their wasm compiles in the background and would delay the engines' tier-up. FLAC's
    // (~0.3 s, the slowest and one of the least asked for) comes after ready, with the other engines.
    await warmUpPipeline(EARLY_FORMATS);
    // Only the warm voices' engines (the default voice's) before the thread reports ready; the others load
    // and warm once every thread is ready (espeak: ~2 s of its 24 MB data and tier-up), so start-up waits
    // only for what most requests use. A request for another engine in that window waits for the engine's
    // load. Without warm voices every engine is ready first.
    const early = new Set(settings.warmVoices ? settings.warmVoices.map((v) => v.engine) : ENGINE_IDS);
    for (const id of ENGINE_IDS) if (early.has(id)) await (await loadEngine(id)).warmUp();
    for (const voice of settings.warmVoices ?? []) await warmVoice(voice);
    announce({ type: 'engines-ready', threadId, engines: [...ENGINE_IDS] });
    warmTurns?.markReady();
    give?.();
    give = undefined;
    if (settings.minimalWarmUp) return;
    await warmTurns?.everyoneReady();
    give = await warmTurns?.take();
    await warmUpPipeline(LATE_FORMATS);
    for (const id of ENGINE_IDS) if (!early.has(id)) await (await loadEngine(id)).warmUp();
  } catch (err) {
    announce({ type: 'engines-failed', threadId, message: err instanceof Error ? err.message : String(err) });
  } finally {
    give?.();
  }
})();

/** A buffer that can be transferred without copying: the view must cover all of it. */
function transferable(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
    return bytes as Uint8Array<ArrayBuffer>;
  }
  return bytes.slice();
}

async function speak(task: SpeakTask): Promise<SpeakResult> {
  const { id, port } = task;
  const controller = new AbortController();
  let acked = 0;
  let sent = 0;
  /** When the first audio went out: the listener's playback runs from there (the turn order reads it). */
  let firstAudioAt: number | undefined;
  let wake: (() => void) | undefined;
  const long = task.long === true;
  // A long reading steps aside for short requests' first audio; a short request counts until its first audio.
  const longEnded = long ? coreYield?.longStarted() : undefined;
  const longTurnsEnded = long ? turns.longStarted() : undefined;
  const firstAudio = long ? undefined : coreYield?.shortStarted();

  const onControl = (msg: ControlMessage): void => {
    if (msg.type === 'ack') acked += msg.seconds;
    else if (msg.type === 'cancel') controller.abort();
    const w = wake;
    wake = undefined;
    w?.();
  };
  // The event loop is blocked while an engine renders; this drains acks and cancels synchronously.
  const drain = (): void => {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onControl(m.message as ControlMessage);
  };
  const onClose = (): void => {
    controller.abort();
    wake?.();
  };
  const post = (msg: StreamMessage, transfer: ArrayBuffer[] = []): void => {
    try {
      port.postMessage(msg, transfer);
    } catch {
      // The consumer closed its end: nothing left to tell it.
    }
  };

  /** Flow control lets more audio go: the consumer has not fallen more than maxUnackedSeconds behind. */
  const hasCredit = (): boolean => sent - acked <= task.maxUnackedSeconds;
  const waitForCredit = async (): Promise<void> => {
    while (!controller.signal.aborted && !hasCredit()) {
      const stalled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), task.stallTimeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      if (stalled) throw new Error(`stream stalled: no audio consumed for ${task.stallTimeoutMs} ms`);
    }
  };

  const send = (bytes: Uint8Array, seconds: number, words?: WordTiming[], marks?: MarkTiming[]): void => {
    const owned = transferable(bytes);
    post({ type: 'chunk', id, bytes: owned, seconds, ...(words ? { words } : {}), ...(marks ? { marks } : {}) }, [owned.buffer]);
    sent += seconds;
    if (seconds > 0 && firstAudioAt === undefined) {
      firstAudioAt = performance.now();
      firstAudio?.();
    }
  };
  const stepAside = (): void => {
    if (long) coreYield?.stepAside();
  };

  port.on('message', onControl);
  port.on('close', onClose);
  drain(); // a cancel may have arrived while the task was queued
  try {
    const result = await renderSpeech(task.request, {
      signal: controller.signal,
      checkpoint: () => {
        drain();
        stepAside();
      },
      turn: async () => {
        const turn = await turns.take({ firstAudioAt, sentSeconds: sent, longReading: long });
        stepAside();
        return turn;
      },
      emit: async (bytes, seconds, words, marks) => {
        await waitForCredit();
        if (controller.signal.aborted) return;
        send(bytes, seconds, words, marks);
        // Back to the event loop between blocks: encoding a long piece takes tens of milliseconds, and a
        // request that arrives meanwhile (or waits for its turn) would otherwise wait for all of it.
        await new Promise<void>((resolve) => setImmediate(resolve));
      },
      // From inside an engine's render: the port takes a message at once, whatever the event loop is doing.
      now: {
        ready: () => {
          drain();
          return !controller.signal.aborted && hasCredit();
        },
        emit: send,
        ahead: () => slack({ firstAudioAt, sentSeconds: sent }, performance.now()),
      },
    });
    post({ type: 'done', id, seconds: result.seconds });
    return { type: 'spoken', id, ...result };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    post({ type: 'error', id, message: e.message, name: e.name });
    return { type: 'spoken', id, seconds: 0, sentences: 0, cancelled: controller.signal.aborted };
  } finally {
    firstAudio?.();
    longEnded?.();
    longTurnsEnded?.();
    port.off('message', onControl);
    port.off('close', onClose);
  }
}

export default async function handle<T extends WorkerTask>(task: T): Promise<ResultOf<T>> {
  if (task.neural) mergeNeuralModels(task.neural);
  if (task.type === 'phonemize') {
    try {
      return { type: 'phonemized', id: task.id, result: await phonemizeText(task.request) } as ResultOf<T>;
    } catch (err) {
      if (err instanceof TextTooLongError || err instanceof UnknownVoiceError)
        return { type: 'refused', id: task.id, name: err.name, message: err.message } as ResultOf<T>;
      throw err;
    }
  }
  return (await speak(task as SpeakTask)) as ResultOf<T>;
}
