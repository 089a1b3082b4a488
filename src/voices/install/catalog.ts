// The catalogue of installable natural voices: Piper's published voices.json (rhasspy/piper-voices, release
// v1.0.0: per voice its key, language, quality, speakers and each file's path, size and MD5, every file fetched
// from its path relative to the catalogue's URL, as in that repository's tree) and the Kokoro v1.0 bundles of
// the kokoro-onnx release files. Both sources are configurable (VOICES_CATALOG_URL, KOKORO_FILES_URL), so a
// mirror or an air-gapped copy serves the same names.
import { matchesLanguage } from '../filter.ts';
import { PIPER_DATASET_GENDER } from '../natural-rank.ts';
import type { Gender } from '../voice.ts';
import { DEFAULT_KOKORO_FILES_URL } from '../../config.ts';
import { fetchText, SourceError } from './source.ts';

export interface CatalogFile {
  /** The file's name in VOICES_DIR. */
  name: string;
  url: string;
  size: number;
  /** Lower-case hex digests; at least one is set for every file. */
  md5?: string;
  sha256?: string;
}

export interface CatalogVoice {
  /** What `voxsmith voices add` takes: `en_US-lessac-medium`, `kokoro-v1.0-int8`. */
  name: string;
  engine: 'piper' | 'kokoro';
  /** BCP 47 tags of the languages it speaks (Kokoro: several). */
  languages: string[];
  /** In English, e.g. "English (United States)". */
  languageName: string;
  /** Piper: x_low, low, medium, high; Kokoro: fp32, fp16, int8 (the model's precision). */
  quality: string;
  speakers: number;
  /** Single-speaker voices whose speaker is known; neutral otherwise. */
  gender: Gender;
  /** The sum of its files. */
  size: number;
  files: CatalogFile[];
  description: string;
}

export class CatalogError extends Error {}

/** Catalogue JSON larger than this is refused (Piper's is ~1 MB). */
export const MAX_CATALOG_BYTES = 32 * 1024 * 1024;
/** No single file of a voice may claim more (Kokoro fp32, the largest, is 326 MB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024 * 1024;

const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/;
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * A file's URL from its catalogue path: relative to the catalogue, never elsewhere (a path with a scheme, a
 * leading slash or `..` is refused, so a catalogue cannot send the installer to another host or folder).
 */
function fileUrl(path: string, base: URL): URL | undefined {
  if (
    /^[a-z][a-z0-9+.-]*:/i.test(path) ||
    path.startsWith('/') ||
    path.startsWith('\\') ||
    path.split('/').some((p) => p === '..' || p === '.')
  )
    return undefined;
  const url = new URL(path.split('/').map(encodeURIComponent).join('/'), base);
  return url;
}

const englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

function languageName(tag: string, english?: string, country?: string): string {
  if (english && country) return `${english} (${country})`;
  try {
    return englishNames.of(tag) ?? tag;
  } catch {
    return english ?? tag;
  }
}

/** Piper's voices.json: every usable entry, in key order. Entries that are malformed or unsafe are left out. */
export function parsePiperCatalog(raw: unknown, catalogUrl: URL): CatalogVoice[] {
  if (!isRecord(raw)) throw new CatalogError('the voice catalogue is not a JSON object of voices');
  const out: CatalogVoice[] = [];
  for (const [key, entry] of Object.entries(raw)) {
    if (!SAFE_KEY.test(key) || !isRecord(entry) || !isRecord(entry.files)) continue;
    const files: CatalogFile[] = [];
    let unsafe = false;
    for (const [path, info] of Object.entries(entry.files)) {
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (name !== `${key}.onnx` && name !== `${key}.onnx.json`) continue; // MODEL_CARD, samples: not needed to speak
      const url = fileUrl(path, catalogUrl);
      const size = isRecord(info) ? info.size_bytes : undefined;
      const md5 = isRecord(info) ? str(info.md5_digest)?.toLowerCase() : undefined;
      if (
        !url ||
        !SAFE_FILE_NAME.test(name) ||
        typeof size !== 'number' ||
        !Number.isInteger(size) ||
        size <= 0 ||
        size > MAX_FILE_BYTES ||
        !md5 ||
        !/^[0-9a-f]{32}$/.test(md5)
      ) {
        unsafe = true;
        break;
      }
      files.push({ name, url: url.href, size, md5 });
    }
    if (unsafe || files.length !== 2) continue;
    files.sort((a, b) => Number(a.name.endsWith('.onnx')) - Number(b.name.endsWith('.onnx'))); // the model last
    const lang = isRecord(entry.language) ? entry.language : {};
    const code = (str(lang.code) ?? key.split('-')[0]).replace(/_/g, '-');
    const quality = str(entry.quality) ?? key.split('-').pop() ?? '';
    const dataset = str(entry.name) ?? key.split('-')[1] ?? key;
    const speakers = typeof entry.num_speakers === 'number' && entry.num_speakers > 0 ? entry.num_speakers : 1;
    const langName = languageName(code, str(lang.name_english), str(lang.country_english));
    out.push({
      name: key,
      engine: 'piper',
      languages: [code],
      languageName: langName,
      quality,
      speakers,
      gender: speakers === 1 ? (PIPER_DATASET_GENDER[dataset.toLowerCase()] ?? 'neutral') : 'neutral',
      size: files.reduce((n, f) => n + f.size, 0),
      files,
      description: `Piper voice "${dataset}", ${langName}, ${quality} quality${speakers > 1 ? `, ${speakers} speakers` : ''}.`,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The Kokoro v1.0 release files. The release publishes no checksums, so each file is pinned here by its size
 * and SHA-256 (of the files at the release's URL, as downloaded); a changed file is refused, not trusted.
 */
const KOKORO_VOICES_FILE = {
  name: 'voices-v1.0.bin',
  size: 28_214_398,
  sha256: 'bca610b8308e8d99f32e6fe4197e7ec01679264efed0cac9140fe9c29f1fbf7d',
};
const KOKORO_MODELS = [
  {
    name: 'kokoro-v1.0',
    file: 'kokoro-v1.0.onnx',
    quality: 'fp32',
    size: 325_532_387,
    sha256: '7d5df8ecf7d4b1878015a32686053fd0eebe2bc377234608764cc0ef3636a6c5',
  },
  {
    name: 'kokoro-v1.0-fp16',
    file: 'kokoro-v1.0.fp16.onnx',
    quality: 'fp16',
    size: 177_464_787,
    sha256: 'c1610a859f3bdea01107e73e50100685af38fff88f5cd8e5c56df109ec880204',
  },
  {
    name: 'kokoro-v1.0-int8',
    file: 'kokoro-v1.0.int8.onnx',
    quality: 'int8',
    size: 92_361_271,
    sha256: '6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb',
  },
] as const;

/** The languages Kokoro v1.0's voices speak (the first letter of each voice name). */
const KOKORO_LANGUAGES = ['en-US', 'en-GB', 'es', 'fr-FR', 'hi', 'it', 'ja', 'pt-BR', 'cmn'];

/** A mirror's own sizes and checksums for the Kokoro files (its `files.json`), by file name. */
export type KokoroManifest = ReadonlyMap<string, { size: number; sha256: string }>;

/** The name of the optional manifest beside the Kokoro files: `{"<file>": {"size_bytes": n, "sha256_digest": "<hex>"}}`. */
export const KOKORO_MANIFEST = 'files.json';

export function parseKokoroManifest(raw: unknown): KokoroManifest {
  const out = new Map<string, { size: number; sha256: string }>();
  if (!isRecord(raw)) return out;
  for (const [name, info] of Object.entries(raw)) {
    if (!SAFE_FILE_NAME.test(name) || !isRecord(info)) continue;
    const size = info.size_bytes;
    const sha256 = str(info.sha256_digest)?.toLowerCase();
    if (
      typeof size === 'number' &&
      Number.isInteger(size) &&
      size > 0 &&
      size <= MAX_FILE_BYTES &&
      sha256 &&
      /^[0-9a-f]{64}$/.test(sha256)
    ) {
      out.set(name, { size, sha256 });
    }
  }
  return out;
}

/**
 * The Kokoro bundles at `filesUrl`. A mirror that serves other files (a later release, a re-export) publishes
 * their sizes and SHA-256 in a manifest; without one, the pins above apply.
 */
export function kokoroCatalog(filesUrl: URL, manifest: KokoroManifest = new Map()): CatalogVoice[] {
  const pinned = (name: string, size: number, sha256: string) => manifest.get(name) ?? { size, sha256 };
  return KOKORO_MODELS.map((m) => {
    const files: CatalogFile[] = [
      {
        name: KOKORO_VOICES_FILE.name,
        ...pinned(KOKORO_VOICES_FILE.name, KOKORO_VOICES_FILE.size, KOKORO_VOICES_FILE.sha256),
        url: new URL(KOKORO_VOICES_FILE.name, filesUrl).href,
      },
      { name: m.file, ...pinned(m.file, m.size, m.sha256), url: new URL(m.file, filesUrl).href },
    ];
    return {
      name: m.name,
      engine: 'kokoro' as const,
      languages: KOKORO_LANGUAGES,
      languageName: 'English (US, UK) and 7 more',
      quality: m.quality,
      speakers: 54,
      gender: 'neutral' as const,
      size: files.reduce((n, f) => n + f.size, 0),
      files,
      description: `Kokoro-82M v1.0, ${m.quality} model: 54 voices (American and British English, Spanish, French, Hindi, Italian, Japanese, Portuguese, Chinese), 24 kHz.`,
    };
  });
}

/** The Kokoro bundle file stem (`kokoro-v1.0.int8`) of a catalogue name (`kokoro-v1.0-int8`), and back. */
export function kokoroStem(name: string): string | undefined {
  return KOKORO_MODELS.find((m) => m.name === name)?.file.replace(/\.onnx$/, '');
}

export function kokoroName(stem: string): string {
  return KOKORO_MODELS.find((m) => m.file === `${stem}.onnx`)?.name ?? stem;
}

export interface CatalogSources {
  catalogUrl: URL;
  kokoroFilesUrl: URL;
}

/**
 * Every installable voice: Kokoro's bundles (known without the network), then Piper's catalogue. Throws a
 * CatalogError that says what to do when the catalogue cannot be read.
 */
export async function loadCatalog(sources: CatalogSources, signal?: AbortSignal): Promise<CatalogVoice[]> {
  let text: string;
  try {
    text = await fetchText(sources.catalogUrl, MAX_CATALOG_BYTES, signal);
  } catch (err) {
    const reason = err instanceof SourceError || err instanceof Error ? err.message : String(err);
    throw new CatalogError(
      `cannot read the voice catalogue at ${sources.catalogUrl.href}: ${reason}. Check the network, or point VOICES_CATALOG_URL at a mirror or a local copy of voices.json.`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CatalogError(`the voice catalogue at ${sources.catalogUrl.href} is not JSON (is VOICES_CATALOG_URL the URL of voices.json?)`);
  }
  return recommendedFirst([
    ...kokoroCatalog(sources.kokoroFilesUrl, await kokoroManifest(sources.kokoroFilesUrl, signal)),
    ...parsePiperCatalog(raw, sources.catalogUrl),
  ]);
}

/**
 * The voices docs/voices.md recommends, in the order they are suggested: the first is the good first voice (63 MB),
 * not the 327 MB Kokoro fp32 bundle that sorted first by name.
 */
export const RECOMMENDED_VOICES: readonly string[] = [
  'en_US-lessac-medium',
  'en_US-ryan-high',
  'en_GB-alan-medium',
  'en_GB-alba-medium',
  'de_DE-thorsten-medium',
  'fr_FR-siwis-medium',
  'es_ES-davefx-medium',
  'kokoro-v1.0-int8',
];

/** The catalogue with the recommended voices first, in their order; the rest keep theirs (the sort is stable). */
export function recommendedFirst(voices: readonly CatalogVoice[]): CatalogVoice[] {
  const rank = (v: CatalogVoice): number => {
    const i = RECOMMENDED_VOICES.indexOf(v.name);
    return i === -1 ? RECOMMENDED_VOICES.length : i;
  };
  return [...voices].sort((a, b) => rank(a) - rank(b));
}

/** The manifest of a Kokoro mirror, if it has one (the release itself has none: its pins apply). */
async function kokoroManifest(filesUrl: URL, signal?: AbortSignal): Promise<KokoroManifest> {
  if (filesUrl.href === DEFAULT_KOKORO_FILES_URL) return new Map();
  try {
    return parseKokoroManifest(JSON.parse(await fetchText(new URL(KOKORO_MANIFEST, filesUrl), 1024 * 1024, signal)));
  } catch {
    return new Map();
  }
}

export interface CatalogQuery {
  /** A language tag or prefix (`en`, `de-DE`). */
  language?: string;
  quality?: string;
  engine?: string;
}

export function filterCatalog(voices: readonly CatalogVoice[], q: CatalogQuery): CatalogVoice[] {
  return voices.filter(
    (v) =>
      (!q.language || v.languages.some((l) => matchesLanguage(l, q.language as string))) &&
      (!q.quality || v.quality === q.quality) &&
      (!q.engine || v.engine === q.engine),
  );
}
