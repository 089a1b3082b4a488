// The owned-voice store on both databases: the migration's column types, and a voice with its upload
// written, read back, scoped to its owner and deleted.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.ts';
import { DbVoiceStore, type OwnedVoice } from '../../src/voices/owned-store.ts';
import { dropSchema, randomSchema, TEST_PG_URL, withPg } from '../helpers/stores.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups) await c();
});

async function addUser(store: Store, id: string): Promise<void> {
  await sql`insert into users (id, email, plan, created_at) values (${id}, ${`${id}@example.com`}, 'free', ${new Date().toISOString()})`.execute(
    store.db,
  );
}

function voice(id: string, owner: string): OwnedVoice {
  return {
    id,
    name: 'Test voice',
    language: 'en-US',
    language_name: 'English',
    gender: 'female',
    engine: 'flite',
    source: 'breed',
    description: 'a test',
    tags: ['bred'],
    parents: ['flite-slt', 'flite-kal16'],
    owner_id: owner,
    created_at: new Date().toISOString(),
    spec: { engine: 'flite', base: 'slt', controls: { pitchHz: 180, rate: 1.1 } },
    genome: { version: 1, engine: 'flite', base: 'slt', base_voice: 'flite-slt', genes: { pitch_hz: 180 } },
    mutation_rate: 0.25,
    seed: 4_000_000_000,
  };
}

async function exercise(store: Store): Promise<void> {
  const voices = new DbVoiceStore(store.db);
  await addUser(store, 'u1');
  await addUser(store, 'u2');
  const bytes = new Uint8Array(70_000).map((_, i) => (i * 7919) & 0xff);
  const v = voice('breed-abc', 'u1');
  await voices.create(v, { fileName: 'breed-abc.wav', container: 'wav', bytes });

  const got = await voices.getOwned('breed-abc', 'u1');
  assert.deepEqual(got, v, 'every field round-trips, the bigint seed as a number');
  assert.equal(await voices.getOwned('breed-abc', 'u2'), null);
  assert.deepEqual(
    (await voices.listByOwner('u1')).map((x) => x.id),
    ['breed-abc'],
  );
  assert.deepEqual(await voices.listByOwner('u2'), []);

  const sample = await voices.getSample('breed-abc', 'u1');
  assert.ok(sample);
  assert.equal(sample.fileName, 'breed-abc.wav');
  assert.deepEqual(sample.bytes, bytes);
  assert.equal(await voices.getSample('breed-abc', 'u2'), null);

  assert.equal(await voices.deleteOwned('breed-abc', 'u2'), false);
  assert.equal(await voices.deleteOwned('breed-abc', 'u1'), true);
  assert.equal(await voices.getOwned('breed-abc', 'u1'), null);
  assert.equal(await voices.getSample('breed-abc', 'u1'), null);
}

describe('owned voice store', () => {
  test('SQLite: the upload is a blob; a voice round-trips', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxsmith-store-'));
    const store = await openStore({ dataDir: dir, databaseUrl: null });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const cols = await sql<{ name: string; type: string }>`select name, type from pragma_table_info('voice_samples')`.execute(store.db);
    assert.equal(cols.rows.find((c) => c.name === 'bytes')?.type.toLowerCase(), 'blob');
    await exercise(store);
  });

  test('PostgreSQL: the upload is bytea; a voice round-trips', async () => {
    const schema = randomSchema('forge');
    const store = await openStore({ dataDir: '/nonexistent', databaseUrl: `${TEST_PG_URL}?schema=${schema}` });
    cleanups.push(async () => {
      await store.close();
      await dropSchema(schema);
    });
    const types = await withPg(async (c) => {
      const { rows } = await c.query<{ table_name: string; column_name: string; data_type: string }>(
        "select table_name, column_name, data_type from information_schema.columns where table_schema = $1 and table_name in ('voices', 'voice_samples')",
        [schema],
      );
      return new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r.data_type]));
    });
    assert.equal(types.get('voice_samples.bytes'), 'bytea');
    assert.equal(types.get('voices.seed'), 'bigint');
    assert.equal(types.get('voices.mutation_rate'), 'double precision');
    await exercise(store);
  });
});
