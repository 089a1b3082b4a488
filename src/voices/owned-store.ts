// Users' own voices in the database (SQLite or PostgreSQL): the OwnedVoiceStore the voice library reads,
// plus what the forge writes. Every query is scoped by owner, so another user's voice is never returned.
import type { Kysely } from 'kysely';
import { lockUserForCap } from '../accounts/user-lock.ts';
import { AppError } from '../errors.ts';
import type { Db, Dialect } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import { ENGINE_IDS } from '../synth/registry.ts';
import type { EngineId, VoiceSpec } from '../synth/voice-spec.ts';
import type { OwnedVoiceStore } from './library.ts';
import { GENDERS, type Gender, type JsonValue, type Voice, type VoiceSource } from './voice.ts';

export interface VoicesTable {
  id: string;
  owner_id: string;
  name: string;
  language: string;
  language_name: string;
  gender: string;
  engine: string;
  source: string;
  description: string;
  /** JSON array of strings. */
  tags: string;
  /** JSON array of two voice ids, bred voices only. */
  parents: string | null;
  /** JSON: the versioned genome (see genome.ts). */
  genome: string;
  /** JSON: the VoiceSpec the engine renders, fixed when the voice was made. */
  spec: string;
  /** JSON: what was measured (clones: the sample and the fitted clone). */
  features: string | null;
  mutation_rate: number | null;
  /** PostgreSQL returns bigint as a string. */
  seed: number | string | null;
  created_at: string;
}

export interface VoiceSamplesTable {
  voice_id: string;
  file_name: string;
  container: string;
  byte_length: number;
  bytes: Uint8Array;
  created_at: string;
}

// A type alias (not an interface): Kysely's withTables wants an indexable record.
type ForgeTables = {
  voices: VoicesTable;
  voice_samples: VoiceSamplesTable;
};

/** A clone or bred voice: a Voice with its owner, genome and how it was made. */
export interface OwnedVoice extends Voice {
  source: Exclude<VoiceSource, 'builtin'>;
  owner_id: string;
  created_at: string;
  genome: JsonValue;
  features?: JsonValue;
  mutation_rate?: number;
  seed?: number;
}

/** The upload a clone was made from, kept in the database (under a server-chosen file name). */
export interface VoiceSample {
  fileName: string;
  container: string;
  bytes: Uint8Array;
}

// One list of engines: the registry's (bred Kokoro voices are stored voices too).
const ENGINES: readonly string[] = ENGINE_IDS;

function parseJson(text: string | null): unknown {
  return text === null ? undefined : (JSON.parse(text) as unknown);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isSpec(v: unknown): v is VoiceSpec {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return typeof s.engine === 'string' && ENGINES.includes(s.engine) && typeof s.base === 'string';
}

/** A row as a voice; null for a row this version cannot read (it is then left out rather than failing a list). */
function toVoice(row: VoicesTable): OwnedVoice | null {
  try {
    const tags = parseJson(row.tags);
    const parents = parseJson(row.parents);
    const spec = parseJson(row.spec);
    const genome = parseJson(row.genome) as JsonValue;
    const features = parseJson(row.features) as JsonValue | undefined;
    if (!isStringArray(tags) || !isSpec(spec) || (parents !== undefined && !isStringArray(parents))) return null;
    if (row.source !== 'clone' && row.source !== 'breed') return null;
    if (!(GENDERS as readonly string[]).includes(row.gender) || !ENGINES.includes(row.engine)) return null;
    const voice: OwnedVoice = {
      id: row.id,
      name: row.name,
      language: row.language,
      language_name: row.language_name,
      gender: row.gender as Gender,
      engine: row.engine as EngineId,
      source: row.source,
      description: row.description,
      tags,
      owner_id: row.owner_id,
      created_at: row.created_at,
      spec,
      genome,
    };
    if (parents !== undefined) voice.parents = parents;
    if (features !== undefined) voice.features = features;
    if (row.mutation_rate !== null) voice.mutation_rate = Number(row.mutation_rate);
    if (row.seed !== null) voice.seed = Number(row.seed);
    return voice;
  } catch {
    return null;
  }
}

function toRow(v: OwnedVoice): VoicesTable {
  return {
    id: v.id,
    owner_id: v.owner_id,
    name: v.name,
    language: v.language,
    language_name: v.language_name,
    gender: v.gender,
    engine: v.engine,
    source: v.source,
    description: v.description,
    tags: JSON.stringify(v.tags),
    parents: v.parents ? JSON.stringify(v.parents) : null,
    genome: JSON.stringify(v.genome),
    spec: JSON.stringify(v.spec),
    features: v.features === undefined ? null : JSON.stringify(v.features),
    mutation_rate: v.mutation_rate ?? null,
    seed: v.seed ?? null,
    created_at: v.created_at,
  };
}

/** Per-account limits on what the forge stores. */
export interface VoiceQuota {
  maxVoices: number;
  maxSampleBytes: number;
}

export class DbVoiceStore implements OwnedVoiceStore {
  private readonly db: Kysely<Database & ForgeTables>;

  constructor(
    db: Db,
    private readonly dialect: Dialect = 'sqlite',
    private readonly quota: VoiceQuota = { maxVoices: Number.POSITIVE_INFINITY, maxSampleBytes: Number.POSITIVE_INFINITY },
  ) {
    this.db = db.withTables<ForgeTables>();
  }

  async listByOwner(ownerId: string): Promise<OwnedVoice[]> {
    const rows = await this.db
      .selectFrom('voices')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toVoice).filter((v): v is OwnedVoice => v !== null);
  }

  async getOwned(id: string, ownerId: string): Promise<OwnedVoice | null> {
    const row = await this.db.selectFrom('voices').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    return row ? toVoice(row) : null;
  }

  /**
   * Stores a new voice, and its upload when given, in one transaction, unless the owner's quota (voices, stored
   * sample bytes) would be passed: the counts are taken in the same transaction, behind the owner's lock, so
   * parallel creations cannot together pass it.
   */
  async create(voice: OwnedVoice, sample?: VoiceSample): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await lockUserForCap(trx, this.dialect, voice.owner_id);
      const held = await trx
        .selectFrom('voices')
        .leftJoin('voice_samples', 'voice_samples.voice_id', 'voices.id')
        .select((eb) => [eb.fn.countAll().as('voices'), eb.fn.sum('voice_samples.byte_length').as('bytes')])
        .where('voices.owner_id', '=', voice.owner_id)
        .executeTakeFirstOrThrow();
      const { maxVoices, maxSampleBytes } = this.quota;
      if (Number(held.voices) >= maxVoices) {
        throw new AppError('quota_exceeded', `This account holds ${maxVoices} voices, the limit (MAX_VOICES_PER_USER); delete one first`);
      }
      const bytes = Number(held.bytes ?? 0) + (sample?.bytes.length ?? 0);
      if (sample && bytes > maxSampleBytes) {
        throw new AppError(
          'quota_exceeded',
          `Stored samples would take ${bytes} bytes; the limit is ${maxSampleBytes} (MAX_SAMPLE_BYTES_PER_USER); delete a cloned voice first`,
        );
      }
      await trx.insertInto('voices').values(toRow(voice)).execute();
      if (sample) {
        await trx
          .insertInto('voice_samples')
          .values({
            voice_id: voice.id,
            file_name: sample.fileName,
            container: sample.container,
            byte_length: sample.bytes.length,
            // Both drivers take a Buffer for blob/bytea.
            bytes: Buffer.from(sample.bytes.buffer, sample.bytes.byteOffset, sample.bytes.byteLength),
            created_at: voice.created_at,
          })
          .execute();
      }
    });
  }

  /** Deletes the owner's voice and its upload; false when the owner has no such voice. */
  async deleteOwned(id: string, ownerId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx.selectFrom('voices').select('id').where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
      if (!owned) return false;
      // Explicit rather than trusting ON DELETE CASCADE: SQLite enforces it only with foreign_keys on.
      await trx.deleteFrom('voice_samples').where('voice_id', '=', id).execute();
      await trx.deleteFrom('voices').where('id', '=', id).where('owner_id', '=', ownerId).execute();
      return true;
    });
  }

  async getSample(id: string, ownerId: string): Promise<VoiceSample | null> {
    const row = await this.db
      .selectFrom('voice_samples')
      .innerJoin('voices', 'voices.id', 'voice_samples.voice_id')
      .select(['voice_samples.file_name', 'voice_samples.container', 'voice_samples.bytes'])
      .where('voices.id', '=', id)
      .where('voices.owner_id', '=', ownerId)
      .executeTakeFirst();
    if (!row) return null;
    return { fileName: row.file_name, container: row.container, bytes: new Uint8Array(row.bytes) };
  }
}
