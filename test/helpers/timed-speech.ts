import assert from 'node:assert/strict';
import type { SpeechWithTimestamps } from '../../src/schemas/timestamps.ts';
import { pcm16Samples } from '../audio/signals.ts';
import type { TestServer } from './server.ts';

/** POST /v1/speak/with-timestamps as 16-bit PCM (unless `body` names a format); the answer with its audio decoded. */
export async function timedSpeech(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
): Promise<SpeechWithTimestamps & { samples: Float32Array }> {
  const res = await server.request('/v1/speak/with-timestamps', { json: { format: 'pcm', ...body }, bearer: key });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const out = JSON.parse(text) as SpeechWithTimestamps;
  const bytes = Buffer.from(out.audio, 'base64');
  assert.equal(bytes.length % 2, 0, 'whole 16-bit samples');
  return { ...out, samples: pcm16Samples(bytes) };
}
