import { encodeWav } from './pcm.ts';

/** The service's decoder takes WAV, MP3, Ogg and FLAC; browsers record WebM, so recordings become WAV here. */
export const RECORDING_RATE = 24_000;

export interface Recording {
  /** Stops the microphone and resolves to the take as a mono 16-bit WAV at RECORDING_RATE. */
  stop(): Promise<Blob>;
  cancel(): void;
  readonly startedAt: number;
}

export function canRecord(): boolean {
  return typeof MediaRecorder !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

export async function startRecording(): Promise<Recording> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false } });
  const recorder = new MediaRecorder(stream);
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size > 0) chunks.push(e.data);
  };
  const stopped = new Promise<void>((resolve) => {
    recorder.onstop = () => resolve();
  });
  const release = () => stream.getTracks().forEach((t) => t.stop());
  recorder.start(250);
  return {
    startedAt: performance.now(),
    cancel() {
      if (recorder.state !== 'inactive') recorder.stop();
      release();
    },
    async stop() {
      if (recorder.state !== 'inactive') recorder.stop();
      await stopped;
      release();
      const recorded = new Blob(chunks, { type: recorder.mimeType });
      return toWav(recorded);
    },
  };
}

/** Decodes any recording the browser can play, mixes it to mono and resamples it to RECORDING_RATE. */
export async function toWav(recorded: Blob): Promise<Blob> {
  const context = new AudioContext();
  let decoded: AudioBuffer;
  try {
    decoded = await context.decodeAudioData(await recorded.arrayBuffer());
  } finally {
    await context.close();
  }
  const length = Math.max(1, Math.ceil(decoded.duration * RECORDING_RATE));
  const offline = new OfflineAudioContext(1, length, RECORDING_RATE);
  const source = offline.createBufferSource();
  source.buffer = decoded;
  source.connect(offline.destination);
  source.start();
  const rendered = await offline.startRendering();
  return encodeWav(rendered.getChannelData(0), RECORDING_RATE);
}
