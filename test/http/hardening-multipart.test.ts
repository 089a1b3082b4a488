import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useService } from '../helpers/fixture.ts';
import { pcm16Wav, sine } from '../audio/signals.ts';

// A malformed upload is the client's fault, a 4xx: 954 of 1 000 randomly cut multipart bodies once answered 500.

function wav(seconds: number): Buffer {
  return pcm16Wav(sine(150, seconds, 16_000, 8000), 16_000);
}

function form(boundary: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
    wav(0.5),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe('malformed multipart is a 400 in the envelope, never a 500', () => {
  const s = useService({ user: 'multipart@example.com' });

  async function assert4xx(body: Buffer, contentType: string, what: string): Promise<void> {
    const res = await s.call('/v1/forge/clone', { body, headers: { 'content-type': contentType } });
    const text = await res.text();
    assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${text}`);
    const parsed = JSON.parse(text) as { error: string; code: string; request_id: string };
    assert.equal(typeof parsed.error, 'string', what);
    assert.equal(typeof parsed.code, 'string', what);
    assert.ok(parsed.request_id, what);
  }

  test('no boundary, an over-long boundary, bodies cut short anywhere', async () => {
    const boundary = 'xYzBoundary42';
    const whole = form(boundary);
    await assert4xx(whole, 'multipart/form-data', 'no boundary');
    await assert4xx(form('b'.repeat(300)), `multipart/form-data; boundary=${'b'.repeat(300)}`, 'boundary > 256 chars');
    await assert4xx(whole, 'multipart/form-data; boundary=', 'empty boundary');
    for (const cut of [10, 40, 80, 130, 200, whole.length - 30, whole.length - 5]) {
      await assert4xx(whole.subarray(0, cut), `multipart/form-data; boundary=${boundary}`, `cut at ${cut} of ${whole.length}`);
    }
    assert.equal((await s.request('/healthz')).status, 200);
  });

  test('part names __proto__, constructor, toString are refused or ignored, never a 500', async () => {
    const boundary = 'protoBoundary7';
    for (const field of ['__proto__', 'constructor', 'toString']) {
      const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\nx\r\n--${boundary}--\r\n`);
      await assert4xx(body, `multipart/form-data; boundary=${boundary}`, `field ${field}`);
    }
  });
});
