// Property-based test: random JSON and random text or binary frames on /v1/ws/stream are
// answered with error messages in the envelope (or audio, when they happen to be valid requests); the
// connection stays usable or closes with a proper code, and the server is healthy afterwards.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import WebSocket from 'ws';
import { useService } from '../helpers/fixture.ts';
import { assertHealthy, PROPERTY_ENV, REQUEST_TIMEOUT_MS } from '../helpers/property.ts';

const s = useService({ env: PROPERTY_ENV, user: 'property-stream@example.com' });

type Msg = Record<string, unknown>;
/** Codes a server closes with on purpose (RFC 6455 §7.4.1 and the application range); never 1006 or 1011. */
const PROPER_CLOSE = new Set([1000, 1001, 1002, 1003, 1007, 1008, 1009]);

const odd = fc.oneof(
  fc.constantFrom(null, true, [], {}, '', '__proto__', 'constructor', '\u202e', 1e308, -1, 0, 0.1, 2 ** 53 + 1, 'x'.repeat(200)),
  fc.string({ maxLength: 30 }),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
);
// Short texts only: a valid request is spoken in full before the probe's answer.
const nearMiss = fc
  .record(
    {
      type: fc.constantFrom('synthesize', 'cancel', 'Synthesize', '', '__proto__'),
      text: fc.oneof(fc.string({ maxLength: 20 }), odd),
      voice_id: fc.oneof(fc.constantFrom('espeak-en-us-male-1', 'flite-slt', '__proto__', 'constructor', 'nope'), odd),
      engine: odd,
      speed: fc.oneof(fc.double({ min: 0.5, max: 2, noNaN: true }), odd),
      id: odd,
    },
    { requiredKeys: ['type'] },
  )
  .map((m) => JSON.stringify(m));
const frame = fc.oneof(
  nearMiss,
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
);

/** Opens a stream and records every message and the close. */
async function open(): Promise<{ ws: WebSocket; messages: Msg[]; closed: () => { code: number } | null }> {
  const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
  const messages: Msg[] = [];
  let closed: { code: number } | null = null;
  ws.on('message', (d, binary) => {
    assert.equal(binary, false, 'the server sends JSON text frames');
    messages.push(JSON.parse(d.toString()) as Msg);
  });
  ws.on('close', (code) => (closed = { code }));
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, messages, closed: () => closed };
}

describe('property: WebSocket frames', () => {
  test('random frames, then a normal request on the same connection', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 5 }), async (frames) => {
        const c = await open();
        try {
          for (const f of frames) c.ws.send(f);
          c.ws.send(JSON.stringify({ type: 'synthesize', text: 'Probe.', id: 'probe-after-fuzz' }));
          // Wait for the probe's end or a close; a hang fails through this deadline.
          const deadline = Date.now() + REQUEST_TIMEOUT_MS;
          while (!c.closed() && !c.messages.some((m) => m.type === 'done' && m.id === 'probe-after-fuzz')) {
            assert.ok(Date.now() < deadline, `no answer to the probe after ${JSON.stringify(frames).slice(0, 300)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
          const closed = c.closed();
          if (closed) assert.ok(PROPER_CLOSE.has(closed.code) || closed.code >= 4000, `closed with ${closed.code}`);
          for (const m of c.messages) {
            assert.ok(['audio', 'done', 'error'].includes(String(m.type)), JSON.stringify(m).slice(0, 200));
            if (m.type !== 'error') continue;
            assert.equal(typeof m.error, 'string', JSON.stringify(m));
            assert.equal(typeof m.code, 'string', JSON.stringify(m));
            assert.notEqual(m.code, 'internal', JSON.stringify(m));
          }
        } finally {
          c.ws.terminate();
        }
      }),
      { numRuns: 80, seed: 3016 },
    );
  });

  test('the server is healthy afterwards', async () => {
    await assertHealthy(s, s.key);
  });
});
