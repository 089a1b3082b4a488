import { encodeWav } from './pcm.ts';

/** The service's decoder takes WAV, MP3, Ogg and FLAC; browsers record WebM, so recordings become WAV here. */
export const RECORDING_RATE = 24_000;
const METER_BLOCK = 512;

export interface Recording {
  /** Stops the microphone and resolves to the take as a mono 16-bit WAV at RECORDING_RATE. */
  stop(): Promise<Blob>;
  cancel(): void;
  /** The microphone's level now, as a peak meter shows it: 0 (silence) to 1 (full scale). */
  level(): number;
  readonly startedAt: number;
}

export function canRecord(): boolean {
  return typeof MediaRecorder !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

export async function startRecording(): Promise<Recording> {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false },
  });
  const recorder = new MediaRecorder(stream);
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size > 0) chunks.push(e.data);
  };
  const stopped = new Promise<void>((resolve) => {
    recorder.onstop = () => resolve();
  });
  // An analyser beside the recorder feeds the level meter; it records nothing itself.
  const meterContext = new AudioContext();
  const analyser = meterContext.createAnalyser();
  // A window longer than the meter's refresh (about 170 ms at 48 kHz against 100 ms), so no sound falls between reads.
  analyser.fftSize = 8192;
  meterContext.createMediaStreamSource(stream).connect(analyser);
  const frame = new Float32Array(analyser.fftSize);
  const release = () => {
    stream.getTracks().forEach((t) => t.stop());
    void meterContext.close().catch(() => undefined);
  };
  let held = 0;
  let heldAt = performance.now();
  recorder.start(250);
  return {
    startedAt: performance.now(),
    level() {
      if (meterContext.state === 'closed') return 0;
      analyser.getFloatTimeDomainData(frame);
      // The loudest ~10 ms block in the window, held and let fall with a 300 ms half-life, as a peak meter does:
      // a plain RMS of the latest samples flickers to zero between syllables and misses short sounds.
      let loudest = 0;
      for (let start = 0; start + METER_BLOCK <= frame.length; start += METER_BLOCK) {
        let sum = 0;
        for (let i = start; i < start + METER_BLOCK; i++) sum += frame[i]! * frame[i]!;
        loudest = Math.max(loudest, Math.sqrt(sum / METER_BLOCK));
      }
      const now = performance.now();
      held = Math.max(loudest, held * Math.pow(0.5, (now - heldAt) / 300));
      heldAt = now;
      return Math.min(1, held);
    },
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
