// The typed client (client/) against a real server: sign-in, keys, speech, the stream helper, typed errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { KEY_SCOPES, VoxsmithClient, VoxsmithError, STREAM_SAMPLE_RATE } from '../../client/index.ts';
import { useService } from '../helpers/fixture.ts';

let client: VoxsmithClient;
const s = useService({ user: 'sdk-user@example.com' }, async () => {
  client = new VoxsmithClient({ baseUrl: s.base, apiKey: s.key, WebSocket });
});

const TEXT = 'Streaming speech arrives in pieces. Each piece is played as soon as it comes.';

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The same request over a raw WebSocket, decoded by hand: the reference for the helper. */
async function rawStream(message: Record<string, unknown>): Promise<Float32Array> {
  const ws = new WebSocket(`${s.base.replace('http', 'ws')}/v1/ws/stream?token=${s.key}`);
  const parts: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ type: 'synthesize', ...message })));
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; audio?: string; error?: string };
      if (m.type === 'audio') parts.push(Buffer.from(m.audio ?? '', 'base64'));
      else if (m.type === 'done') resolve();
      else reject(new Error(m.error));
    });
    ws.on('error', reject);
  });
  ws.close();
  const all = Buffer.concat(parts);
  return new Float32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength));
}

describe('client: sign-in and keys through the SDK', () => {
  test('login → verify → session → create, list, revoke a key → logout', async () => {
    const anonymous = new VoxsmithClient({ baseUrl: s.base });
    const before = s.mail.messages.length;
    assert.match((await anonymous.login('sdk-flow@example.com')).message, /sdk-flow@example.com/);
    const token = await s.mail.tokenFor('sdk-flow@example.com', before);
    const { user, sessionCookie } = await anonymous.verify(token);
    assert.equal(user.email, 'sdk-flow@example.com');
    assert.ok(sessionCookie?.startsWith('vox_session='));

    // A Node client on a session sends the cookie and the service's own Origin, as the dashboard would.
    const dashboard = new VoxsmithClient({ baseUrl: s.base, headers: { cookie: sessionCookie ?? '', origin: s.origin } });
    assert.deepEqual(await dashboard.session(), user);
    const created = await dashboard.createKey('sdk');
    assert.match(created.key, /^service_sk_/);
    const listed = await dashboard.listKeys();
    assert.ok(
      listed.some(
        (k) => k.id === created.id && k.masked_key.startsWith('service_sk_') && !k.masked_key.includes(created.key.slice(11, 30)),
      ),
    );

    const withKey = new VoxsmithClient({ baseUrl: s.base, apiKey: created.key });
    assert.ok((await withKey.listVoices({ language: 'en-GB' })).length > 0);
    // The key (all scopes) makes a speech-only key; that one speaks and is refused key management.
    assert.deepEqual(created.scopes, [...KEY_SCOPES]);
    const speaker = await withKey.createKey({ name: 'speaker', scopes: ['speech'] });
    assert.deepEqual(speaker.scopes, ['speech']);
    assert.deepEqual((await withKey.listKeys()).find((k) => k.id === speaker.id)?.scopes, ['speech']);
    const speakerClient = withKey.withApiKey(speaker.key);
    assert.ok((await speakerClient.speak({ text: 'Hi.', voice_id: 'flite-slt', format: 'wav' })).audio.byteLength > 1000);
    await assert.rejects(
      speakerClient.listKeys(),
      (err: unknown) => err instanceof VoxsmithError && err.status === 403 && err.code === 'insufficient_scope',
    );
    assert.deepEqual(await withKey.revokeKey(speaker.id), { id: speaker.id, revoked: true, also_revoked: [] });
    assert.deepEqual(await dashboard.revokeKey(created.id), { id: created.id, revoked: true, also_revoked: [] });
    await assert.rejects(withKey.listKeys(), (err: unknown) => err instanceof VoxsmithError && err.status === 401);

    await dashboard.logout();
    assert.equal(await dashboard.session(), null);
  });

  test('errors are VoxsmithError with status, code and request id; no server is status 0', async () => {
    const err = await client.speak({ text: 'Hello.', voice_id: 'robot-9' }).then(
      () => assert.fail('should fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof VoxsmithError);
    assert.equal(err.status, 404);
    assert.equal(err.code, 'voice_not_found');
    assert.match(err.message, /robot-9/);
    assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(
      s.logs.some((line) => line.includes(err.requestId ?? '-')),
      'the request id finds the log lines',
    );

    const unreachable = new VoxsmithClient({ baseUrl: 'http://127.0.0.1:9' });
    await assert.rejects(unreachable.health(), (e: unknown) => e instanceof VoxsmithError && e.status === 0 && e.code === 'network');
  });
});

describe('client: speech', () => {
  test('speak returns the audio with its content type, rate and voice; speakStream streams the same bytes', async () => {
    const whole = await client.speak({ text: TEXT, voice_id: 'flite-slt', format: 'pcm' });
    assert.equal(whole.contentType, 'audio/pcm');
    assert.equal(whole.sampleRate, 24_000);
    assert.equal(whole.voiceId, 'flite-slt');
    assert.ok(whole.audio.length > 24_000 * 2, 'more than a second of audio');

    const streamed = await client.speakStream({ text: TEXT, voice_id: 'flite-slt', format: 'pcm' });
    const chunks: Uint8Array[] = [];
    for await (const chunk of streamed.body) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    assert.ok(Math.abs(bytes.length - whole.audio.length) / whole.audio.length < 0.02, `${bytes.length} vs ${whole.audio.length} bytes`);
  });

  test('the stream helper yields the same samples as a raw WebSocket', async () => {
    const request = { text: TEXT, voice_id: 'flite-slt' };
    const raw = await rawStream(request);
    const chunks: Float32Array[] = [];
    const iterator = client.stream(request);
    let next = await iterator.next();
    while (!next.done) {
      chunks.push(next.value);
      next = await iterator.next();
    }
    const helper = concat(chunks);
    assert.ok(chunks.length > 1, 'arrived in more than one chunk');
    assert.equal(next.value.samples, helper.length, 'done counts the samples yielded');
    assert.equal(helper.length, raw.length);
    assert.deepEqual(helper, raw);
    assert.ok(helper.length / STREAM_SAMPLE_RATE > 2);
  });

  test('one connection, several requests in order; breaking out of one cancels it, the next still plays', async () => {
    const stream = await client.openStream();
    try {
      let taken = 0;
      for await (const chunk of stream.synthesize({ text: `${TEXT} ${TEXT} ${TEXT}`, voice_id: 'espeak-en-us-male-1' })) {
        taken += chunk.length;
        break;
      }
      assert.ok(taken > 0);
      const words: string[] = [];
      const samples: Float32Array[] = [];
      const it = stream.synthesize(
        { text: 'Second request.', voice_id: 'espeak-en-us-male-1' },
        { onWords: (w) => words.push(...w.map((x) => x.word)) },
      );
      let r = await it.next();
      while (!r.done) {
        samples.push(r.value);
        r = await it.next();
      }
      assert.equal(r.value.cancelled, false);
      assert.ok(concat(samples).length > 0.3 * STREAM_SAMPLE_RATE);
      assert.ok(words.map((w) => w.toLowerCase()).includes('second'), `words: ${words.join(' ')}`);
    } finally {
      stream.close();
    }
  });

  test('an error message on the stream is a VoxsmithError with the server’s code; aborting stops it', async () => {
    await assert.rejects(
      async () => {
        for await (const _ of client.stream({ text: 'Hi.', voice_id: 'robot-9' })) assert.fail('no audio expected');
      },
      (err: unknown) => err instanceof VoxsmithError && err.code === 'voice_not_found' && err.status === 0,
    );
    const abort = new AbortController();
    let chunks = 0;
    await assert.rejects(async () => {
      for await (const _ of client.stream({ text: `${TEXT} ${TEXT}`, voice_id: 'flite-slt' }, { signal: abort.signal })) {
        chunks++;
        abort.abort();
      }
    });
    assert.equal(chunks, 1);
  });

  test('a refused upgrade (bad key) is a 401 VoxsmithError', async () => {
    const stranger = new VoxsmithClient({ baseUrl: s.base, apiKey: 'service_sk_nope', WebSocket });
    await assert.rejects(stranger.openStream(), (err: unknown) => err instanceof VoxsmithError && err.status === 401);
  });
});

describe('client: browser-safe', () => {
  // Without Node's types, a Buffer or process reference fails to compile as surely as a node: import.
  test('no Node imports: the client type-checks with the DOM library and no Node types', () => {
    for (const file of readdirSync('client').filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(`client/${file}`, 'utf8');
      assert.doesNotMatch(text, /from '(node:|ws'|fs'|path')/, file);
    }
    const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'client'], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });
});
