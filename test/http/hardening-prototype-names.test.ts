import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { useService } from '../helpers/fixture.ts';

// Names from the request once reached Object.prototype ("voice": "__proto__" → 500 TypeError, or silently the
// default voice). Every such name must be a 4xx, or, for a filter, simply match nothing.
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

describe('user-supplied names never reach Object.prototype', () => {
  const s = useService({ user: 'proto@example.com' });

  async function refused(res: Response, what: string): Promise<void> {
    assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${await res.clone().text()}`);
    const body = (await res.json()) as { error: string; code: string; request_id: string };
    assert.equal(typeof body.error, 'string', what);
    assert.equal(typeof body.code, 'string', what);
    assert.ok(body.request_id, what);
  }

  test('voice ids, formats, engines and OpenAI voice names and models', async () => {
    for (const name of NAMES) {
      await refused(await s.call('/v1/speak', { json: { text: 'hi', voice_id: name } }), `speak voice_id ${name}`);
      await refused(await s.call('/v1/speak', { json: { text: 'hi', format: name } }), `speak format ${name}`);
      for (const model of ['tts-1', 'tts-1-hd', 'flite', 'espeak']) {
        await refused(await s.call('/v1/audio/speech', { json: { model, input: 'hi', voice: name } }), `openai ${model} voice ${name}`);
      }
      await refused(await s.call('/v1/audio/speech', { json: { model: name, input: 'hi', voice: 'alloy' } }), `openai model ${name}`);
      await refused(
        await s.call('/v1/audio/speech', { json: { model: 'tts-1', input: 'hi', voice: 'alloy', response_format: name } }),
        `openai response_format ${name}`,
      );
      await refused(await s.call(`/api/voices/${encodeURIComponent(name)}`), `voice record ${name}`);
      await refused(
        await s.call('/v1/forge/breed', { json: { parent_a: name, parent_b: 'flite-slt', name: 'x' } }),
        `breed parent ${name}`,
      );
    }
  });

  test('stream messages: voice_id and engine answer an error message, the stream stays usable', async () => {
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
    const messages: Array<{ type: string; code?: string; id?: string }> = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as { type: string; code?: string; id?: string }));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const cases = NAMES.flatMap((name) => [{ voice_id: name }, { engine: name }]);
    for (const [i, extra] of cases.entries()) ws.send(JSON.stringify({ type: 'synthesize', text: 'hi', id: `p${i}`, ...extra }));
    const deadline = Date.now() + 30_000;
    while (messages.filter((m) => m.type === 'error').length < cases.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const errors = messages.filter((m) => m.type === 'error');
    assert.equal(errors.length, cases.length, JSON.stringify(messages));
    assert.ok(
      errors.every((m) => m.code !== 'internal'),
      JSON.stringify(errors),
    );
    assert.ok(!messages.some((m) => m.type === 'audio'), 'no silent default voice');
    assert.equal(ws.readyState, WebSocket.OPEN);
    ws.close();
  });

  test('voice list filters: a prototype name matches nothing, never a 500', async () => {
    for (const name of NAMES) {
      for (const param of ['language', 'engine', 'gender']) {
        const res = await s.request(`/api/voices?${param}=${encodeURIComponent(name)}`);
        assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${param}=${name}: ${res.status}`);
        if (res.status === 200) assert.deepEqual(((await res.json()) as { voices: unknown[] }).voices, [], `${param}=${name}`);
      }
      const search = await s.request(`/api/voices/search?q=${encodeURIComponent(name)}`);
      assert.ok(search.status < 500, `search ${name}: ${search.status}`);
    }
  });
});

// Every name Object.prototype has, in every place SSML looks a request value up in a table: each must be refused
// with ssml_invalid (or, for the preview's language, answered or refused), never a 500 or silently accepted.
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** SSML documents that put `name` where the parser looks a value up. */
function ssmlPlacements(name: string): Array<[string, string]> {
  return [
    ['say-as interpret-as', `<speak>a <say-as interpret-as="${name}">12</say-as></speak>`],
    ['break strength', `<speak>a <break strength="${name}"/> b</speak>`],
    ['emphasis level', `<speak><emphasis level="${name}">a</emphasis></speak>`],
    ['prosody rate', `<speak><prosody rate="${name}">a</prosody></speak>`],
    ['prosody pitch', `<speak><prosody pitch="${name}">a</prosody></speak>`],
    ['prosody volume', `<speak><prosody volume="${name}">a</prosody></speak>`],
    ['phoneme alphabet', `<speak><phoneme alphabet="${name}" ph="a">a</phoneme></speak>`],
    ['element', `<speak>a <${name}>b</${name}></speak>`],
    ['empty element', `<speak>a <${name}/></speak>`],
    ['attribute', `<speak><s ${name}="1">a</s></speak>`],
    ['root attribute', `<speak ${name}="1">a</speak>`],
    ['plain-text break strength', `a <break strength="${name}"/> b`],
    ['plain-text break attribute', `a <break ${name}="1s"/> b`],
  ];
}

describe('SSML never looks a request value up on Object.prototype', () => {
  const s = useService({ user: 'proto-ssml@example.com' });

  async function ssmlInvalid(res: Response, what: string): Promise<void> {
    const text = await res.text();
    assert.equal(res.status, 400, `${what}: ${res.status} ${text}`);
    assert.equal((JSON.parse(text) as { code: string }).code, 'ssml_invalid', `${what}: ${text}`);
  }

  test(`${PROTOTYPE_NAMES.length} prototype names in every SSML position: 400 ssml_invalid on /v1/speak`, async () => {
    for (const name of PROTOTYPE_NAMES) {
      for (const [where, text] of ssmlPlacements(name)) {
        await ssmlInvalid(await s.call('/v1/speak', { json: { text, voice_id: 'flite-slt', format: 'pcm' } }), `${where} ${name}`);
      }
    }
  });

  test('the other doors refuse them too: timestamps, OpenAI, ElevenLabs, the stream', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const text = `<speak>a <say-as interpret-as="${name}">12</say-as> <break strength="${name}"/></speak>`;
      await ssmlInvalid(await s.call('/v1/speak/with-timestamps', { json: { text } }), `timestamps ${name}`);
      await ssmlInvalid(await s.call('/v1/audio/speech', { json: { model: 'tts-1', voice: 'alloy', input: text } }), `openai ${name}`);
      await ssmlInvalid(
        await s.request('/v1/text-to-speech/flite-slt', { json: { text }, headers: { 'xi-api-key': s.key } }),
        `elevenlabs ${name}`,
      );
    }
    const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
    const messages: Array<{ type: string; code?: string }> = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as { type: string; code?: string }));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(
      JSON.stringify({ type: 'synthesize', id: 'p', text: '<speak><break strength="constructor"/>a <toString>b</toString></speak>' }),
    );
    const deadline = Date.now() + 30_000;
    while (!messages.some((m) => m.type === 'error') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      messages.filter((m) => m.type === 'error').map((m) => m.code),
      ['ssml_invalid'],
    );
    ws.close();
  });

  test('a voice preview in a prototype-named language is answered (counting) or refused, never a 500', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await s.request(`/api/voices/flite-slt/preview?language=${encodeURIComponent(name)}`, { cookie: s.cookie });
      assert.ok(res.status === 200 || res.status === 400, `language=${name}: ${res.status}`);
      if (res.status === 200) assert.ok((await res.arrayBuffer()).byteLength > 1000, `language=${name}: audio`);
      else assert.equal(((await res.json()) as { code: string }).code, 'validation');
    }
  });
});
