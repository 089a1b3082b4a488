// Section 20: the voice-agent sockets (ElevenLabs, Cartesia, Deepgram) against our own WebSocket: time from a
// complete sentence sent to its first audio, and barge-in: from the cancel (close_context, cancel, Clear) sent to
// the last audio of the interrupted reply received.
import WebSocket from 'ws';
import type { Section } from '../report.ts';
import { ms, percentile } from '../stats.ts';
import { ONE_SENTENCE, PARAGRAPH_2000 } from '../texts.ts';

const VOICE = 'flite-slt';
/** How long a socket must stay quiet after a cancel before its last audio is taken as the last. */
const QUIET_MS = 400;

/** One socket: frames as they arrive, each with its arrival time. */
class Timed {
  readonly frames: Array<{ at: number; text: string | null }> = [];
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, binary) => {
      this.frames.push({ at: performance.now(), text: binary ? null : data.toString() });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Timed> {
    const ws = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Timed(ws);
  }

  send(message: unknown): number {
    this.ws.send(JSON.stringify(message));
    return performance.now();
  }

  /** The first frame from index `from` on that matches; fails after 60 s. */
  async next(from: number, match: (f: { text: string | null }) => boolean): Promise<{ at: number; index: number }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const index = this.frames.findIndex((f, i) => i >= from && match(f));
      if (index >= 0) return { at: this.frames[index].at, index };
      if (Date.now() > deadline) throw new Error('no answer within 60 s');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Waits until no frame came for QUIET_MS; the arrival time of the last audio frame from `from` on (or null). */
  async lastAudio(from: number, isAudio: (f: { text: string | null }) => boolean): Promise<number | null> {
    for (;;) {
      const last = this.frames.at(-1)?.at ?? 0;
      if (performance.now() - last >= QUIET_MS) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const audio = this.frames.slice(from).filter(isAudio);
    return audio.length > 0 ? (audio.at(-1)?.at ?? null) : null;
  }

  close(): void {
    this.ws.close();
  }
}

const json = (f: { text: string | null }): Record<string, unknown> =>
  f.text === null ? {} : (JSON.parse(f.text) as Record<string, unknown>);

interface Door {
  name: string;
  open(): Promise<Timed>;
  /** Sends one reply's text; resolves with the send time. `whole`: the text is complete and spoken through. */
  start(s: Timed, id: string, text: string, whole: boolean): number;
  isAudio(f: { text: string | null }, id: string): boolean;
  /** Barge-in; null when the door has none here. */
  cancel: ((s: Timed, id: string) => number) | null;
}

function doors(base: string, key: string): Door[] {
  const ws = base.replace(/^http/, 'ws');
  return [
    {
      name: 'ours (/v1/ws/stream)',
      open: () => Timed.open(`${ws}/v1/ws/stream?token=${key}`),
      start: (s, id, text) => s.send({ type: 'synthesize', context_id: id, text, continue: false, voice_id: VOICE }),
      isAudio: (f, id) => json(f).type === 'audio' && json(f).context_id === id,
      cancel: (s, id) => s.send({ type: 'cancel', context_id: id }),
    },
    {
      name: 'ElevenLabs multi-stream-input',
      open: () => Timed.open(`${ws}/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_24000`, { 'xi-api-key': key }),
      start: (s, id, text, whole) => {
        s.send({ text: ' ', context_id: id });
        // An interrupted reply is one not flushed yet (a flushed one finishes speaking on close_context, as theirs).
        return s.send({ text: `${text} `, context_id: id, flush: whole });
      },
      isAudio: (f, id) => typeof json(f).audio === 'string' && json(f).audio !== '' && json(f).contextId === id,
      cancel: (s, id) => s.send({ context_id: id, close_context: true }),
    },
    {
      name: 'Cartesia /tts/websocket',
      open: () => Timed.open(`${ws}/tts/websocket?api_key=${key}`, { 'Cartesia-Version': '2025-04-16' }),
      start: (s, id, text, whole) =>
        s.send({
          context_id: id,
          model_id: 'sonic-2',
          transcript: text,
          continue: !whole,
          voice: { mode: 'id', id: VOICE },
          output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
        }),
      isAudio: (f, id) => json(f).type === 'chunk' && json(f).context_id === id,
      cancel: (s, id) => s.send({ context_id: id, cancel: true }),
    },
    {
      name: 'Deepgram /v1/speak',
      open: () => Timed.open(`${ws}/v1/speak?model=${VOICE}&encoding=linear16&sample_rate=24000`, { authorization: `Token ${key}` }),
      start: (s, _id, text) => {
        s.send({ type: 'Speak', text });
        return s.send({ type: 'Flush' });
      },
      isAudio: (f) => f.text === null,
      cancel: (s) => s.send({ type: 'Clear' }),
    },
  ];
}

export async function vendorSockets(base: string, key: string, runs: number): Promise<Section> {
  const rows: string[][] = [];
  const summary: Array<[string, string]> = [];
  let oursP50 = Number.NaN;
  for (const door of doors(base, key)) {
    const socket = await door.open();
    const first: number[] = [];
    const bargeIn: number[] = [];
    for (let run = -1; run < runs; run++) {
      const id = `r${run + 1}`;
      let from = socket.frames.length;
      const sent = door.start(socket, id, ONE_SENTENCE, true);
      const audio = await socket.next(from, (f) => door.isAudio(f, id));
      // The rest of the sentence, so the next run starts on a quiet socket.
      await socket.lastAudio(audio.index, (f) => door.isAudio(f, id));
      if (run >= 0) first.push(audio.at - sent);
      if (!door.cancel) continue;
      const long = `${id}-long`;
      from = socket.frames.length;
      door.start(socket, long, PARAGRAPH_2000, false);
      const heard = await socket.next(from, (f) => door.isAudio(f, long));
      const cancelledAt = door.cancel(socket, long);
      const last = await socket.lastAudio(heard.index, (f) => door.isAudio(f, long));
      if (run >= 0) bargeIn.push(Math.max(0, (last ?? cancelledAt) - cancelledAt));
    }
    socket.close();
    const p50 = percentile(first, 50);
    if (door.name.startsWith('ours')) oursP50 = p50;
    rows.push([
      door.name,
      ms(p50),
      ms(percentile(first, 95)),
      door.name.startsWith('ours') ? '—' : ms(p50 - oursP50),
      ms(percentile(bargeIn, 50)),
      ms(percentile(bargeIn, 95)),
    ]);
    summary.push([
      `${door.name}: first audio p50 / barge-in p95 (targets: within 5 ms of ours / ≤ 50 ms)`,
      `${ms(p50)} / ${ms(percentile(bargeIn, 95))} ms`,
    ]);
  }
  return {
    title: '20. Voice-agent sockets: first audio and barge-in',
    summary,
    notes: [
      `One socket per protocol, voice ${VOICE}, ${runs} runs after one warm-up. First audio: from sending one complete sentence (flushed or ended) to its first audio frame.`,
      `Barge-in: a 2 000-character reply is started, and once its first audio is in it is cancelled (ours: cancel; ElevenLabs: close_context of an unflushed context; Cartesia: cancel; Deepgram: Clear); the time from sending that to the last audio frame of the reply received (0 when none came after), taken once the socket has been quiet for ${QUIET_MS} ms.`,
    ],
    headers: ['socket', 'first audio p50 ms', 'p95 ms', 'p50 vs ours ms', 'barge-in p50 ms', 'barge-in p95 ms'],
    rows,
  };
}
