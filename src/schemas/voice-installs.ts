// The operator's voice installs: the catalogue of installable natural voices, what VOICES_DIR holds, and the
// installs in progress. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const CatalogEntry = Type.Object(
  {
    name: Type.String({ description: 'What to install, e.g. en_US-lessac-medium or kokoro-v1.0-int8' }),
    engine: Type.String({ description: 'piper or kokoro' }),
    languages: Type.Array(Type.String(), { description: 'BCP 47 tags it speaks' }),
    language_name: Type.String(),
    quality: Type.String({ description: 'Piper: x_low, low, medium, high; Kokoro: fp32, fp16, int8' }),
    speakers: Type.Integer(),
    gender: Type.String(),
    size: Type.Integer({ description: 'Bytes to download' }),
    description: Type.String(),
    installed: Type.Boolean(),
  },
  { additionalProperties: true },
);
export type CatalogEntry = Static<typeof CatalogEntry>;

export const CatalogQuery = Type.Object({
  language: Type.Optional(Type.String({ maxLength: 35, description: 'BCP 47 tag or prefix, e.g. en, de-DE' })),
  quality: Type.Optional(Type.String({ maxLength: 20 })),
  engine: Type.Optional(Type.String({ maxLength: 20 })),
});
export type CatalogQuery = Static<typeof CatalogQuery>;

export const CatalogList = Type.Object({ voices: Type.Array(CatalogEntry) }, { description: 'Installable natural voices' });
export type CatalogList = Static<typeof CatalogList>;

export const InstalledVoice = Type.Object({
  name: Type.String(),
  engine: Type.String(),
  size: Type.Integer(),
  files: Type.Array(Type.String()),
  voice_ids: Type.Array(Type.String(), { description: 'The voice ids it adds (one per speaker)' }),
});
export type InstalledVoice = Static<typeof InstalledVoice>;
export const InstalledList = Type.Object({ voices: Type.Array(InstalledVoice) }, { description: 'What VOICES_DIR holds' });
export type InstalledList = Static<typeof InstalledList>;

export const InstallJob = Type.Object({
  name: Type.String(),
  status: Type.String({ enum: ['queued', 'waiting', 'downloading', 'installed', 'failed', 'cancelled'] }),
  received: Type.Integer({ description: 'Bytes on disk so far' }),
  total: Type.Integer(),
  bytes_per_second: Type.Integer(),
  seconds_left: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Optional(Type.String({ description: 'Why it failed or was cancelled' })),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type InstallJob = Static<typeof InstallJob>;

export const InstallBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }) },
  { examples: [{ name: 'en_US-lessac-medium' }] },
);
export const InstallResponse = Type.Object({ install: InstallJob }, { description: 'The install, started (or already running)' });
export type InstallResponse = Static<typeof InstallResponse>;
export const InstallList = Type.Object(
  { installs: Type.Array(InstallJob) },
  { description: 'Installs running, and those finished in the last 10 minutes' },
);
export type InstallList = Static<typeof InstallList>;
export const CancelResponse = Type.Object({ install: InstallJob }, { description: 'The install, stopped (status cancelled)' });
export type CancelResponse = Static<typeof CancelResponse>;
export const InstalledParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) });
export const Removed = Type.Object({ name: Type.String(), removed: Type.Array(Type.String({ description: 'Files deleted' })) });
export type Removed = Static<typeof Removed>;
