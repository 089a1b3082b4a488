// The ElevenLabs SDK's list, model and user calls, unchanged but for the base URL and key: models.list() gets
// their shape (the request carries xi-api-key) while OpenAI's SDK keeps its own; user.get() and
// user.subscription.get() report the account's usage; output_format's rates and bitrates are what ffprobe
// reads; voices carry a preview_url that plays with the key.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import OpenAI from 'openai';
import { ffmpegDecode, SKIP_NO_FFMPEG, TempDir } from '../audio/ffmpeg.ts';
import { useService } from '../helpers/fixture.ts';

let eleven: ElevenLabsClient;
const tmp = new TempDir();
const s = useService({ user: 'eleven-account@example.com', keyName: 'agent' }, async () => {
  eleven = new ElevenLabsClient({ apiKey: s.key, baseUrl: s.base, maxRetries: 0 });
});

after(async () => {
  tmp.remove();
});

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

/** ffprobe's view of the first audio stream: codec, sample rate, bit rate (the stream's, else the file's average). */
function probeRates(path: string): { codec: string; sampleRate: number; bitRate: number } {
  const r = spawnSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,bit_rate:format=bit_rate', '-of', 'json', path],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as {
    streams: Array<{ codec_name: string; sample_rate: string; bit_rate?: string }>;
    format: { bit_rate?: string };
  };
  const stream = j.streams[0];
  const streamRate = Number(stream.bit_rate);
  return {
    codec: stream.codec_name,
    sampleRate: Number(stream.sample_rate),
    bitRate: Number.isFinite(streamRate) && streamRate > 0 ? streamRate : Number(j.format.bit_rate),
  };
}

describe('ElevenLabs SDK: models and the account', () => {
  test('models.list() gets their shape: our engines with the languages of their voices', async () => {
    const models = await eleven.models.list();
    const ids = models.map((m) => m.modelId).sort();
    assert.deepEqual(ids, ['espeak', 'flite']);
    const flite = models.find((m) => m.modelId === 'flite');
    assert.equal(flite?.canDoTextToSpeech, true);
    assert.deepEqual(flite?.languages, [{ languageId: 'en', name: 'English' }]);
    assert.equal(flite?.maximumTextLengthPerRequest, 10_000);
    const espeak = models.find((m) => m.modelId === 'espeak');
    assert.ok((espeak?.languages?.length ?? 0) > 50, 'espeak speaks many languages');
    assert.ok(espeak?.languages?.some((l) => l.languageId === 'de' && l.name === 'German'));
    // The ids work as their model_id (accepted; the voice decides).
    const audio = await bytesOf(
      await eleven.textToSpeech.convert('flite-slt', { text: 'Hello.', modelId: 'flite', outputFormat: 'pcm_16000' }),
    );
    assert.ok(audio.length > 3200);
  });

  test('OpenAI’s SDK still gets OpenAI’s list on the same path, and models.retrieve works', async () => {
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.base}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    assert.ok(ids.includes('tts-1') && ids.includes('flite'));
    const model = await openai.models.retrieve('flite');
    assert.deepEqual(
      { id: model.id, object: model.object, owned_by: model.owned_by },
      { id: 'flite', object: 'model', owned_by: 'voxsmith' },
    );
    assert.equal((await openai.models.retrieve('tts-1-hd')).id, 'tts-1-hd');
    await assert.rejects(
      openai.models.retrieve('whisper-1'),
      (err: unknown) => err instanceof OpenAI.NotFoundError && /No model "whisper-1"/.test(String((err as { error?: unknown }).error)),
    );
    // Without a key too, as Open WebUI asks.
    const res = await fetch(`${s.base}/v1/models/espeak`);
    assert.equal(res.status, 200);
  });

  test('user.get() and user.subscription.get(): this month’s characters, the voice slots, the key preview', async () => {
    const text = 'Count these characters, please.';
    const before = (await eleven.user.get()).subscription.characterCount;
    await bytesOf(await eleven.textToSpeech.convert('flite-slt', { text, outputFormat: 'pcm_16000' }));
    const user = await eleven.user.get();
    assert.match(user.userId, /^usr/);
    assert.equal(user.subscription.characterCount, before + text.length);
    assert.ok(user.subscription.characterLimit > 1e12, 'no monthly limit');
    assert.equal(user.subscription.voiceLimit, 100);
    assert.equal(user.subscription.voiceSlotsUsed, 0);
    assert.equal(user.subscription.tier, 'free');
    assert.equal(user.isApiKeyHashed, true);
    assert.equal(user.xiApiKeyPreview?.slice(-4), s.key.slice(-4));
    assert.ok(user.xiApiKeyPreview?.includes('*'), 'masked');
    const resetsAt = new Date(user.subscription.nextCharacterCountResetUnix! * 1000);
    assert.equal(resetsAt.getUTCDate(), 1, 'the first of next month');
    assert.ok(resetsAt.getTime() > Date.now());

    const sub = await eleven.user.subscription.get();
    assert.equal(sub.characterCount, before + text.length);
    assert.deepEqual(sub.openInvoices, []);
    assert.equal(sub.status, 'active');
    // The dashboard session sees the same account.
    const viaSession = await s.request('/v1/user/subscription', { cookie: s.cookie });
    assert.equal(((await viaSession.json()) as { character_count: number }).character_count, before + text.length);
    // Without a key: 401.
    assert.equal((await fetch(`${s.base}/v1/user`)).status, 401);
  });

  test('a Speech only key checks itself with user.get(): the account and its key preview, without the usage figures', async () => {
    const made = await s.request('/api/auth/api-keys', {
      cookie: s.cookie,
      sameOrigin: true,
      json: { name: 'speaker', scopes: ['speech'] },
    });
    assert.equal(made.status, 201);
    const { key } = (await made.json()) as { key: string };
    const speaker = new ElevenLabsClient({ apiKey: key, baseUrl: s.base, maxRetries: 0 });
    await bytesOf(await speaker.textToSpeech.convert('flite-slt', { text: 'Spoken with a speech key.', outputFormat: 'pcm_16000' }));
    const full = await eleven.user.get();
    assert.ok(full.subscription.characterCount > 0, 'the usage key sees the characters used');
    const user = await speaker.user.get();
    assert.equal(user.userId, full.userId);
    assert.equal(user.xiApiKeyPreview?.slice(-4), key.slice(-4), 'its own key');
    assert.equal(user.subscription.characterCount, 0, 'usage withheld');
    assert.equal(user.subscription.voiceSlotsUsed, 0);
    assert.equal(user.firstName, undefined);
    // The subscription is nothing but usage: still the usage scope's.
    await assert.rejects(speaker.user.subscription.get(), (err: { statusCode?: number }) => err.statusCode === 403);
  });

  test('voices carry a preview_url that plays with the key, not billed', async () => {
    const { voices } = await eleven.voices.getAll();
    const slt = voices.find((v) => v.voiceId === 'flite-slt');
    assert.equal(slt?.previewUrl, `http://voxsmith.test/api/voices/flite-slt/preview`);
    const path = new URL(slt?.previewUrl ?? '').pathname;
    const before = (await eleven.user.subscription.get()).characterCount;
    const preview = await s.request(path, { headers: { 'xi-api-key': s.key } });
    assert.equal(preview.status, 200);
    assert.equal(preview.headers.get('content-type'), 'audio/mpeg');
    const mp3 = tmp.file('preview.mp3', Buffer.from(await preview.arrayBuffer()));
    assert.ok(ffmpegDecode(mp3).length > 24_000, 'over a second of speech');
    assert.equal((await eleven.user.subscription.get()).characterCount, before, 'previews are not usage');
    // A preview synthesizes: a key without the speech scope is refused, as on every other speech door.
    const made = await s.request('/api/auth/api-keys', { json: { name: 'reader', scopes: ['usage', 'voices'] }, bearer: s.key });
    assert.equal(made.status, 201);
    const reader = ((await made.json()) as { key: string }).key;
    for (const headers of [{ 'xi-api-key': reader }, { authorization: `Bearer ${reader}` }] as Array<Record<string, string>>) {
      const refused = await s.request('/api/voices/flite-awb/preview', { headers });
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as { code: string }).code, 'insufficient_scope');
    }
  });
});

describe('ElevenLabs output_format: rates and bitrates', { skip: SKIP_NO_FFMPEG }, () => {
  const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs into the forest.';
  for (const c of [
    { name: 'mp3_44100_128', codec: 'mp3', rate: 44_100, kbps: 128 },
    { name: 'mp3_22050_32', codec: 'mp3', rate: 22_050, kbps: 32 },
    { name: 'mp3_24000_48', codec: 'mp3', rate: 24_000, kbps: 48 },
    { name: 'mp3_44100_192', codec: 'mp3', rate: 44_100, kbps: 192 },
    { name: 'opus_48000_64', codec: 'opus', rate: 48_000, kbps: 64 },
    { name: 'opus_48000_128', codec: 'opus', rate: 48_000, kbps: 128 },
  ] as const) {
    test(`${c.name}: ${c.codec} at ${c.rate} Hz and ${c.kbps} kbit/s (ffprobe), the same speech`, async () => {
      const audio = await bytesOf(await eleven.textToSpeech.convert('flite-slt', { text: TEXT, outputFormat: c.name }));
      const path = tmp.file(`${c.name}.${c.codec === 'mp3' ? 'mp3' : 'ogg'}`, audio);
      const info = probeRates(path);
      assert.equal(info.codec, c.codec);
      assert.equal(info.sampleRate, c.rate);
      // MP3 is constant bitrate: ffprobe reads it from the frames. Opus is a target the encoder holds on average.
      const tolerance = c.codec === 'mp3' ? 0.01 : 0.2;
      assert.ok(Math.abs(info.bitRate / 1000 - c.kbps) <= c.kbps * tolerance, `${info.bitRate / 1000} kbit/s`);
      const seconds = ffmpegDecode(path, { rate: 16_000 }).length / 16_000;
      assert.ok(seconds > 3 && seconds < 8, `${seconds} s`);
    });
  }
});
