// The forge's worker thread: decoding an upload and measuring speech take real CPU (a 120 s upload is
// about two seconds of work), which must not stall the event loop that serves everyone else.
import { AudioDecodeError, decodeUpload } from '../audio/decode.ts';
import type { AnalysisResult, AnalysisTask } from './forge-protocol.ts';
import { measureSpeaker } from './speaker-features.ts';

const MIN_SPEECH_SECONDS = 1;

async function analyze(task: AnalysisTask): Promise<AnalysisResult> {
  if (task.type === 'pcm') {
    const features = await measureSpeaker(task.samples, task.rate);
    if (!features) return { ok: false, kind: 'no_speech', message: 'the render holds no speech' };
    return { ok: true, features };
  }
  const decoded = await decodeUpload(task.bytes, { maxSeconds: task.maxSeconds });
  if (decoded.seconds < task.minSeconds) {
    return {
      ok: false,
      kind: 'too_short',
      message: `the audio is ${decoded.seconds.toFixed(1)} s long; at least ${task.minSeconds} s are needed`,
    };
  }
  const features = await measureSpeaker(decoded.samples, decoded.sampleRate);
  // Whether what sounds is speech is the clone's rule (notSpeechReason); here only whether anything sounds.
  if (!features) return { ok: false, kind: 'no_speech', message: 'nothing in the audio sounds longer than a click: no speech was found' };
  if (features.speech_seconds < MIN_SPEECH_SECONDS) {
    return {
      ok: false,
      kind: 'no_speech',
      message: `only ${features.speech_seconds.toFixed(1)} s of the audio sounds; at least ${MIN_SPEECH_SECONDS} s of speech are needed`,
    };
  }
  return { ok: true, features, container: decoded.container, seconds: Math.round(decoded.seconds * 1000) / 1000 };
}

export default async function handle(task: AnalysisTask): Promise<AnalysisResult> {
  try {
    return await analyze(task);
  } catch (err) {
    // Errors lose their class crossing the thread boundary; the kind travels as data.
    if (err instanceof AudioDecodeError) return { ok: false, kind: err.kind, message: err.message };
    throw err;
  }
}
