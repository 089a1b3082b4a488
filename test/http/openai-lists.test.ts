// The rest of the OpenAI-compatible surface: the model and voice lists (as OpenAI's SDK and Open WebUI read
// them), `instructions`, and `stream_format: "sse"` read by the SDK, all through the real server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { useService } from '../helpers/fixture.ts';

let openai: OpenAI;
const s = useService({ user: 'openai-lists@example.com' }, async () => {
  openai = new OpenAI({ apiKey: s.key, baseURL: `${s.base}/v1`, maxRetries: 0 });
});

const TEXT = 'Speak this sentence at whatever pace the instructions ask for, please.';

function pcmSeconds(bytes: ArrayBuffer): number {
  return bytes.byteLength / 2 / 24_000;
}

async function seconds(extra: Record<string, unknown>): Promise<number> {
  const res = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'pcm', ...extra });
  return pcmSeconds(await res.arrayBuffer());
}

describe('lists', () => {
  test('GET /v1/models through the SDK: OpenAI’s speech models and our engines', async () => {
    const ids: string[] = [];
    for await (const model of openai.models.list()) {
      assert.equal(model.object, 'model');
      assert.equal(model.owned_by, 'voxsmith');
      assert.ok(Number.isInteger(model.created) && model.created > 1_700_000_000);
      ids.push(model.id);
    }
    // The test server has no VOICES_DIR models, so the neural engines (no voices) are not offered.
    assert.deepEqual(ids.sort(), ['espeak', 'flite', 'gpt-4o-mini-tts', 'tts-1', 'tts-1-hd']);
    // Every listed model is accepted by the speech endpoint.
    for (const model of ids) {
      const res = await openai.audio.speech.create({ model, voice: 'alloy', input: 'Hi.', response_format: 'pcm' });
      assert.ok((await res.arrayBuffer()).byteLength > 2400, model);
    }
  });

  test('GET /v1/audio/models and /v1/audio/voices answer without a key, in Open WebUI’s shape', async () => {
    const models = (await (await fetch(`${s.base}/v1/audio/models`)).json()) as { models: Array<{ id: string }> };
    assert.deepEqual(models.models.slice(0, 3), [{ id: 'tts-1' }, { id: 'tts-1-hd' }, { id: 'gpt-4o-mini-tts' }]);
    const res = await fetch(`${s.base}/v1/audio/voices`);
    assert.equal(res.status, 200);
    const { voices } = (await res.json()) as { voices: Array<{ id: string; name: string }> };
    // Open WebUI builds {id: name} from exactly these two fields.
    for (const v of voices) assert.deepEqual(Object.keys(v).sort(), ['id', 'name']);
    const ids = voices.map((v) => v.id);
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    assert.equal(voices[0].id, 'alloy');
    // Readable and unique: the alias, then the voice it speaks (without natural voices installed, flite's Sally).
    assert.equal(voices[0].name, 'alloy → Sally · American English, female, flite');
    assert.equal(new Set(voices.map((v) => v.name)).size, voices.length, 'labels are unique');
    assert.ok(ids.includes('flite-rms') && ids.includes('espeak-de-female-1'));
    assert.ok(voices.length > 100, `${voices.length} voices`);
  });

  test('every listed voice id is one the speech endpoint speaks', async () => {
    const { voices } = (await (await fetch(`${s.base}/v1/audio/voices`)).json()) as { voices: Array<{ id: string }> };
    // A spread of the list (every 15th): OpenAI names, flite and espeak voices.
    for (const { id } of voices.filter((_, i) => i % 15 === 0)) {
      const { data, response } = await openai.audio.speech
        .create({ model: 'tts-1', voice: id, input: 'Hello.', response_format: 'pcm' })
        .withResponse();
      assert.ok((await data.arrayBuffer()).byteLength > 2400, id);
      assert.ok(response.headers.get('x-voice-id'), id);
    }
  });
});

describe('instructions', () => {
  test('"slowly" and "quickly" set the pace; other style words are accepted and change nothing; speed wins', async () => {
    const plain = await seconds({});
    const slow = await seconds({ instructions: 'Speak slowly and warmly.' });
    const quick = await seconds({ instructions: 'Read it quickly, like an auctioneer.' });
    const styled = await seconds({ instructions: 'Sound cheerful and friendly.' });
    assert.ok(slow / plain > 1.08, `slowly: ${slow} s vs ${plain} s`);
    assert.ok(quick / plain < 0.92, `quickly: ${quick} s vs ${plain} s`);
    assert.ok(Math.abs(styled - plain) / plain < 0.02, `styled ${styled} s vs ${plain} s`);
    const explicit = await seconds({ instructions: 'Speak slowly.', speed: 1 });
    assert.ok(Math.abs(explicit - plain) / plain < 0.02, 'an explicit speed overrides the instruction');
  });
});

describe('stream_format sse', () => {
  test('the SDK’s streamed response is OpenAI’s event shapes: base64 deltas, then done with token usage', async () => {
    const res = await openai.audio.speech.create({
      model: 'gpt-4o-mini-tts',
      voice: 'alloy',
      input: TEXT,
      response_format: 'pcm',
      stream_format: 'sse',
    });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);
    const deltas = events.slice(0, -1);
    assert.ok(deltas.length > 1);
    for (const d of deltas) {
      assert.deepEqual(Object.keys(d).sort(), ['audio', 'type']);
      assert.equal(d.type, 'speech.audio.delta');
      assert.match(d.audio as string, /^[A-Za-z0-9+/]+=*$/);
    }
    const done = events.at(-1) as { type: string; usage: { input_tokens: number; output_tokens: number; total_tokens: number } };
    assert.equal(done.type, 'speech.audio.done');
    assert.equal(done.usage.total_tokens, done.usage.input_tokens + done.usage.output_tokens);
    assert.ok(done.usage.input_tokens > 0);
    const bytes = deltas.reduce((n, d) => n + Buffer.from(d.audio as string, 'base64').length, 0);
    assert.ok(Math.abs(pcmSeconds(new ArrayBuffer(bytes)) - (await seconds({}))) < 0.05);
  });
});
