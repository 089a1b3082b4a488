import { decodeFloat32Base64 } from './audio/pcm.ts';
import { StreamPlayer } from './audio/stream-player.ts';

export const STREAM_RATE = 24_000;

export interface StreamRequest {
  text: string;
  voice_id: string;
  speed?: number;
}

export interface StreamProgress {
  state: 'connecting' | 'streaming' | 'draining' | 'done' | 'error' | 'cancelled';
  /** Milliseconds from sending the request to the first audio chunk arriving. */
  firstAudioMs: number | null;
  /** Milliseconds from sending the request to the first chunk starting to sound. */
  firstSoundMs: number | null;
  chunks: number;
  seconds: number;
  underruns: number;
  error: string | null;
}

interface ServerMessage {
  type?: unknown;
  audio?: unknown;
  error?: unknown;
}

function streamUrl(): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  // The session cookie rides along on the upgrade; no key ever appears in the page.
  return `${scheme}//${window.location.host}/v1/ws/stream`;
}

/**
 * One streamed synthesis played live. Start it from a click (audio needs a user gesture); `onProgress`
 * gets a fresh snapshot after every message.
 */
export function startStream(request: StreamRequest, onProgress: (p: StreamProgress) => void): { cancel: () => void } {
  const player = new StreamPlayer(STREAM_RATE);
  const progress: StreamProgress = { state: 'connecting', firstAudioMs: null, firstSoundMs: null, chunks: 0, seconds: 0, underruns: 0, error: null };
  const emit = () => onProgress({ ...progress, chunks: player.stats.chunks, seconds: player.stats.seconds, underruns: player.stats.underruns });
  let sentAt = 0;
  let finished = false;
  const socket = new WebSocket(streamUrl());

  const finish = async (state: StreamProgress['state'], error: string | null = null) => {
    if (finished) return;
    finished = true;
    progress.error = error;
    if (state === 'done') {
      progress.state = 'draining';
      emit();
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
      await player.drained();
    } else if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
      socket.close(1000);
    }
    progress.state = state;
    emit();
    await player.close();
  };

  void player.resume();
  emit();
  socket.onopen = () => {
    sentAt = performance.now();
    socket.send(JSON.stringify({ type: 'synthesize', ...request }));
    progress.state = 'streaming';
    emit();
  };
  socket.onmessage = (event: MessageEvent<unknown>) => {
    if (finished || typeof event.data !== 'string') return;
    let msg: ServerMessage;
    try {
      msg = JSON.parse(event.data) as ServerMessage;
    } catch {
      return;
    }
    if (msg.type === 'audio' && typeof msg.audio === 'string') {
      const samples = decodeFloat32Base64(msg.audio);
      const startAt = player.push(samples);
      if (progress.firstAudioMs === null) {
        progress.firstAudioMs = performance.now() - sentAt;
        const lead = Math.max(0, startAt - player.context.currentTime);
        progress.firstSoundMs = progress.firstAudioMs + lead * 1000;
      }
      emit();
    } else if (msg.type === 'done') {
      void finish('done');
    } else if (msg.type === 'error') {
      void finish('error', typeof msg.error === 'string' ? msg.error : 'The stream failed.');
    }
  };
  socket.onerror = () => {
    void finish('error', 'Could not open the stream (the connection was refused or dropped).');
  };
  socket.onclose = (event) => {
    if (!finished) void finish('error', event.reason || 'The stream closed before it was done.');
  };

  return {
    cancel: () => {
      if (finished) return;
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'cancel' }));
      void finish('cancelled');
    },
  };
}
