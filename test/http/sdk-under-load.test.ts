// Issue 44, C1: with six busy loops beside the server, the ElevenLabs SDK's first textToSpeech.convert after
// sign-in failed with "UND_ERR_SOCKET: other side closed" and the server logged nothing. Here the real SDK, with
// fresh keys from the real sign-in, makes its calls again and again while six processes spin beside the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { useService } from '../helpers/fixture.ts';
import { pcm16Samples } from '../audio/signals.ts';

const BUSY_LOOPS = 6;
const ROUNDS = 3;

const loops: ChildProcess[] = [];
before(() => {
  for (let i = 0; i < BUSY_LOOPS; i++) {
    loops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
});
after(() => {
  for (const loop of loops) loop.kill('SIGKILL');
});

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

describe('the ElevenLabs SDK under CPU load (six busy loops beside the server)', () => {
  const s = useService({});

  test('each round signs in, makes a key and the SDK calls with it: every call is answered', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { key } = await s.newKey(`load-${round}@example.com`, 'sdk');
      const eleven = new ElevenLabsClient({ apiKey: key, baseUrl: s.base, maxRetries: 0 });
      const audio = await bytesOf(
        await eleven.textToSpeech.convert('flite-slt', { text: `Round ${round}. Hello there.`, outputFormat: 'pcm_16000' }),
      );
      // At least half a second of 16 kHz speech: a real answer, not an empty body.
      assert.ok(pcm16Samples(audio).length > 8_000, `round ${round}: ${audio.length} bytes of audio`);
      const user = await eleven.user.get();
      assert.equal(typeof user.subscription.characterCount, 'number');
      const voices = await eleven.voices.search({ pageSize: 5 });
      assert.ok(voices.voices.length > 0);
      const again = await bytesOf(await eleven.textToSpeech.convert('flite-slt', { text: 'And again.', outputFormat: 'pcm_16000' }));
      assert.ok(pcm16Samples(again).length > 4_000);
    }
    // And the server closed no connection on a request it had begun to read.
    assert.equal(s.logs.filter((l) => l.includes('connection closed on an unfinished request')).length, 0);
  });
});
