// A long WAV or FLAC download starts as soon as its first audio exists, as MP3 does, instead of being held back
// whole for its exact header sizes: its first bytes, whose header does not know the length yet, reach the client
// while the render is still running (the client then stops reading until it hangs up). Short answers keep their
// exact sizes (wav-sizes.test.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { useService } from '../helpers/fixture.ts';
import { metricValue } from '../helpers/metrics.ts';
import { settleReadiness } from '../helpers/server.ts';

const s = useService({ user: 'first-byte@example.com' }, (service) => settleReadiness(service.server));

const SENTENCES = [
  'The river was high that spring, and the old bridge stayed closed for weeks while engineers argued about the stones.',
  'Every morning the ferry carried children across to the school on the hill, and every evening it brought them back.',
  'Nobody in the village remembered a flood like it, though the oldest fisherman claimed his father had seen worse.',
  'By June the water fell, the mud dried into pale cracked plates, and the swallows returned to the arches.',
];
/** About 2 900 characters, three minutes of audio: a WAV of 7.6 MB, which used to be held back whole (up to 8 MiB). */
const LONG_TEXT = Array.from({ length: 26 }, (_, i) => SENTENCES[i % SENTENCES.length]).join(' ');

/** A FLAC file's sample count from its STREAMINFO (36 bits; 0 means not known when the header was written). */
function flacSamples(file: Buffer): number {
  assert.equal(file.toString('latin1', 0, 4), 'fLaC');
  assert.equal(file[4]! & 0x7f, 0, 'STREAMINFO comes first');
  return (file[21]! & 0x0f) * 2 ** 32 + file.readUInt32BE(22);
}

/** POSTs `body` and resolves with the response once its first body bytes are in, the response then paused. */
function firstBytes(path: string, body: unknown): Promise<{ res: IncomingMessage; first: Buffer; hangUp: () => void }> {
  const { port } = new URL(s.base);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.once('data', (chunk: Buffer) => {
          res.pause();
          resolve({ res, first: chunk, hangUp: () => req.destroy() });
        });
        res.once('end', () => reject(new Error(`the response ended without a body (${res.statusCode})`)));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('a long download’s first bytes come before its render ends', () => {
  for (const format of ['wav', 'mulaw', 'flac', 'mp3'] as const) {
    test(`/v1/speak ${format}`, async () => {
      assert.equal(await metricValue(s.server, 'voxsmith_synthesis_running'), 0, 'nothing renders before the request');
      const { res, first, hangUp } = await firstBytes('/v1/speak', { text: LONG_TEXT, voice_id: 'flite-slt', format });
      try {
        assert.equal(res.statusCode, 200);
        // The render of this request is still running while the client holds its first bytes.
        assert.equal(await metricValue(s.server, 'voxsmith_synthesis_running'), 1, 'the render is still running');
        if (format === 'wav' || format === 'mulaw') {
          assert.equal(first.toString('latin1', 0, 4), 'RIFF');
          // The length is not known yet: the conventional "until the end of the file" sizes.
          assert.equal(first.readUInt32LE(4), 0xffffffff, 'open-ended RIFF size');
        }
        if (format === 'flac') assert.equal(flacSamples(first), 0, 'sample count not known yet');
      } finally {
        hangUp();
        // The hang-up cancels the render (the next test starts from an idle pool).
        for (let i = 0; i < 300 && (await metricValue(s.server, 'voxsmith_synthesis_running')) > 0; i++)
          await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(await metricValue(s.server, 'voxsmith_synthesis_running'), 0, 'the render stopped with the hang-up');
    });
  }
});
