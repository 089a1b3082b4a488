// GET /metrics: access rules, a parseable exposition, and counters that move with real traffic.
import { before, describe, test } from 'node:test';
import { get as httpGet } from 'node:http';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { VoxsmithClient, VoxsmithError } from '../../client/index.ts';
import { useService } from '../helpers/fixture.ts';
import type { TestServer } from '../helpers/server.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

// Values as Go's ParseFloat reads them (Prometheus does): NaN and Inf in any case; prom-client writes "Nan".
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|[-+]?inf))$/i;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The Prometheus text format, strictly: every line is a comment or `name{labels} value`. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = LINE.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of the series of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(server: TestServer, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await server.request('/metrics', { headers });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

/** Scrapes until `check` holds: the response hook may run just after the client has read the body. */
async function eventually(server: TestServer, check: (s: Sample[]) => boolean, headers: Record<string, string> = {}): Promise<Sample[]> {
  let last: Sample[] = [];
  for (let i = 0; i < 100; i++) {
    last = await scrape(server, headers);
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  return last;
}

describe('metrics without METRICS_TOKEN: loopback only', () => {
  const s = useService({ user: 'metrics@example.com' });
  let client: VoxsmithClient;
  before(async () => {
    client = new VoxsmithClient({ baseUrl: s.base, apiKey: s.key, WebSocket });
  });

  test('a loopback client reads them; the exposition parses and has every family', async () => {
    const samples = await scrape(s);
    const names = new Set(samples.map((x) => x.name));
    for (const name of [
      'voxsmith_synthesis_queue_depth',
      'voxsmith_synthesis_running',
      'voxsmith_synthesis_workers',
      'voxsmith_synthesis_workers_ready',
      'voxsmith_synthesis_long_pauses_total',
      'voxsmith_synthesis_low_priority_workers',
      'voxsmith_websocket_streams_active',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.ok(names.has(name), name);
    }
    assert.ok(total(samples, 'voxsmith_synthesis_workers') >= 1);
    // Threads warm up in turn (this test app does not wait for them): none to all may be warm.
    const ready = total(samples, 'voxsmith_synthesis_workers_ready');
    assert.ok(ready >= 0 && ready <= total(samples, 'voxsmith_synthesis_workers'), `ready threads: ${ready}`);
    assert.ok(total(samples, 'voxsmith_http_requests_total', { route: '/api/auth/api-keys', method: 'POST', status: '201' }) >= 1);
  });

  test('through a proxy on this host (a forwarding header) it is 403 with the error body', async () => {
    const res = await s.request('/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { error: string; code: string; request_id: string };
    assert.equal(body.code, 'forbidden');
    assert.match(body.error, /METRICS_TOKEN/);
    assert.equal(body.request_id, res.headers.get('x-request-id'));
  });

  test('a loopback peer naming a foreign Host (DNS rebinding) is 403; an address or localhost Host reads them', async () => {
    const port = new URL(s.base).port;
    const byHost = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpGet({ host: '127.0.0.1', port, path: '/metrics', headers: { host } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
      });
    for (const host of ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`, '127.0.0.1.nip.io']) {
      const res = await byHost(host);
      assert.equal(res.status, 403, host);
      const body = JSON.parse(res.body) as { code: string; error: string };
      assert.equal(body.code, 'forbidden');
      assert.match(body.error, /DNS rebinding/);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const res = await byHost(host);
      assert.equal(res.status, 200, host);
      assert.match(res.body, /voxsmith_http_requests_total/);
    }
  });

  test('requests, synthesis characters, time to first audio and outcomes move with traffic, by route and engine', async () => {
    const before = await scrape(s);
    const text = 'Counting characters for the metrics test.';
    await client.speak({ text, voice_id: 'espeak-en-us-male-1', format: 'wav' });
    await client.speak({ text, voice_id: 'flite-slt', format: 'mp3' });
    await assert.rejects(client.speak({ text, voice_id: 'robot-9' }), VoxsmithError);
    await s.request('/v1/no-such-endpoint');

    const speak200 = { route: '/v1/speak', method: 'POST', status: '200' };
    const after = await eventually(
      s,
      (x) =>
        total(x, 'voxsmith_http_requests_total', speak200) - total(before, 'voxsmith_http_requests_total', speak200) === 2 &&
        total(x, 'voxsmith_http_requests_total', { route: 'unmatched', status: '404' }) >
          total(before, 'voxsmith_http_requests_total', { route: 'unmatched', status: '404' }),
    );
    const delta = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    assert.equal(delta('voxsmith_http_requests_total', speak200), 2);
    assert.equal(delta('voxsmith_http_request_duration_seconds_count', speak200), 2);
    assert.ok(delta('voxsmith_http_request_duration_seconds_sum', speak200) > 0);
    assert.equal(delta('voxsmith_http_requests_total', { route: '/v1/speak', status: '404' }), 1);
    assert.equal(delta('voxsmith_http_requests_total', { route: 'unmatched', status: '404' }), 1);
    for (const engine of ['espeak', 'flite']) {
      const labels = { endpoint: 'speak', engine };
      assert.equal(delta('voxsmith_synthesis_characters_total', labels), text.length, engine);
      assert.equal(delta('voxsmith_time_to_first_audio_seconds_count', labels), 1, engine);
      assert.equal(delta('voxsmith_synthesis_seconds_count', labels), 1, engine);
      assert.ok(delta('voxsmith_synthesis_seconds_sum', labels) > 0, engine);
      assert.equal(delta('voxsmith_synthesis_requests_total', { ...labels, outcome: 'ok' }), 1, engine);
    }
    // Histogram buckets are cumulative: +Inf holds every observation.
    assert.equal(delta('voxsmith_time_to_first_audio_seconds_bucket', { endpoint: 'speak', engine: 'flite', le: '+Inf' }), 1);
  });

  test('open WebSocket streams are counted while open; stream and OpenAI syntheses have their own label', async () => {
    const before = await scrape(s);
    const stream = await client.openStream();
    try {
      const during = await eventually(s, (x) => total(x, 'voxsmith_websocket_streams_active') === 1);
      assert.equal(total(during, 'voxsmith_websocket_streams_active'), 1);
      for await (const _ of stream.synthesize({ text: 'Streamed for the metrics.', voice_id: 'flite-slt' })) {
        // drain
      }
    } finally {
      stream.close();
    }
    await client.openaiSpeech({ model: 'tts-1', voice: 'alloy', input: 'Spoken through the OpenAI route.' });
    const after = await eventually(s, (x) => total(x, 'voxsmith_websocket_streams_active') === 0);
    assert.equal(total(after, 'voxsmith_websocket_streams_active'), 0);
    const delta = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    assert.equal(delta('voxsmith_synthesis_characters_total', { endpoint: 'stream', engine: 'flite' }), 'Streamed for the metrics.'.length);
    assert.equal(delta('voxsmith_time_to_first_audio_seconds_count', { endpoint: 'stream' }), 1);
    assert.equal(
      delta('voxsmith_synthesis_characters_total', { endpoint: 'openai', engine: 'flite' }),
      'Spoken through the OpenAI route.'.length,
    );
  });
});

describe('metrics with METRICS_TOKEN', () => {
  const TOKEN = 'metrics-secret-7f3a9c';

  const s = useService({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '2' } });

  test('no or a wrong Bearer token is 401 {error}, even from loopback; the right one reads them', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${TOKEN}` }] as Array<Record<string, string>>) {
      const res = await s.request('/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(body.code, 'unauthorized');
      assert.match(body.error, /METRICS_TOKEN/);
    }
    // The token is not an API key: the auth hook leaves /metrics alone.
    const samples = await scrape(s, { authorization: `Bearer ${TOKEN}` });
    assert.ok(samples.length > 0);
    assert.equal(total(samples, 'voxsmith_http_requests_total', { route: '/metrics', status: '401' }), 3);
  });

  test('rate-limit refusals are counted, over HTTP and at the stream upgrade', async () => {
    const { key } = await s.newKey('limited@example.com');
    const client = new VoxsmithClient({ baseUrl: s.base, apiKey: key, WebSocket });
    await client.speak({ text: 'One.', voice_id: 'espeak-en-us-male-1', format: 'pcm' });
    await client.speak({ text: 'Two.', voice_id: 'espeak-en-us-male-1', format: 'pcm' });
    const refused = await client.speak({ text: 'Three.', format: 'pcm' }).then(
      () => assert.fail('the third request in a minute should be refused'),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof VoxsmithError);
    assert.equal(refused.status, 429);
    assert.equal(refused.code, 'rate_limited');
    assert.ok(refused.retryAfter !== undefined && refused.retryAfter >= 1, `Retry-After ${refused.retryAfter}`);
    await assert.rejects(client.openStream(), (e: unknown) => e instanceof VoxsmithError && e.status === 429);

    const samples = await eventually(s, (x) => total(x, 'voxsmith_rate_limited_total', { policy: 'api' }) >= 2, {
      authorization: `Bearer ${TOKEN}`,
    });
    assert.equal(total(samples, 'voxsmith_rate_limited_total', { policy: 'api' }), 2);
    assert.equal(total(samples, 'voxsmith_http_requests_total', { route: '/v1/speak', status: '429' }), 1);
  });
});
