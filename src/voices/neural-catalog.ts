// VOICES_DIR: the Piper and Kokoro model files the operator put there, as synthesis models (for the
// workers) and as library voices. Each broken, truncated or mismatched file is reported with its path and
// reason and left out; everything else still loads. A missing directory means no neural voices.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readStyleVectors } from '../synth/engines/kokoro/voices-file.ts';
import { kokoroGender, kokoroLanguage, type KokoroBundle, type NeuralModels, type PiperModel } from '../synth/neural-models.ts';
import { PIPER_DATASET_GENDER } from './natural-rank.ts';
import { checkOnnxFile } from './onnx-file-check.ts';
import { parsePiperConfig, PIPER_CONFIG_BOUNDS } from './piper-config.ts';
import type { Voice } from './voice.ts';

export interface CatalogProblem {
  path: string;
  reason: string;
}

export interface NeuralCatalog {
  models: NeuralModels;
  voices: Voice[];
  problems: CatalogProblem[];
}

const NEURAL_TAGS = ['natural', 'neural'];

function slug(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** What changes when a file is replaced: its size and modification time. */
async function revisionOf(...paths: string[]): Promise<string> {
  const parts: string[] = [];
  for (const path of paths) {
    const st = await stat(path);
    parts.push(`${st.size}:${Math.round(st.mtimeMs)}`);
  }
  return parts.join('/');
}

const capitalize = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

function piperVoices(m: PiperModel): Voice[] {
  const quality = m.quality ? `, ${m.quality} quality` : '';
  const where = m.region ? ` (${m.region})` : '';
  const base = {
    language: m.language,
    language_name: m.languageName,
    gender: m.speakers.length === 0 ? (PIPER_DATASET_GENDER[m.dataset.toLowerCase()] ?? 'neutral') : ('neutral' as const),
    engine: 'piper' as const,
    source: 'builtin' as const,
    tags: [...NEURAL_TAGS, 'piper', m.dataset, ...(m.quality ? [m.quality] : []), ...(m.region ? [m.region] : [])],
  };
  const description = `Natural neural voice (Piper) trained on the "${m.dataset}" dataset${quality}; ${m.languageName}${where}, ${m.sampleRate} Hz model.`;
  if (m.speakers.length === 0) {
    return [
      {
        ...base,
        id: `piper-${slug(m.key)}`,
        name: `${capitalize(m.dataset)}${m.quality ? ` (${m.quality})` : ''}`,
        description,
        spec: { engine: 'piper', base: m.key },
      },
    ];
  }
  return m.speakers.map((s) => ({
    ...base,
    id: `piper-${slug(m.key)}-${slug(s.name) || String(s.id)}`,
    name: `${capitalize(m.dataset)} ${s.name}`,
    description: `${description} Speaker ${s.name} of ${m.speakers.length}.`,
    tags: [...base.tags, 'multi-speaker'],
    spec: { engine: 'piper', base: `${m.key}/${s.name}` },
  }));
}

function kokoroVoices(b: KokoroBundle): Voice[] {
  const out: Voice[] = [];
  for (const name of b.voices) {
    const language = kokoroLanguage(name);
    if (!language) continue;
    const gender = kokoroGender(name);
    const shortName = capitalize(name.slice(name.indexOf('_') + 1));
    out.push({
      id: `kokoro-${slug(name)}`,
      name: shortName,
      language: language.tag,
      language_name: language.name,
      gender: gender ?? 'neutral',
      engine: 'kokoro',
      source: 'builtin',
      description: `Natural neural voice (Kokoro-82M, ${b.key}): ${shortName}, ${gender ?? 'unspecified'} ${language.name} (${language.tag}), 24 kHz.`,
      tags: [...NEURAL_TAGS, 'kokoro', b.key, name],
      spec: { engine: 'kokoro', base: `${b.key}/${name}` },
    });
  }
  return out;
}

/** The first required input (any of its accepted names) the model lacks, or null. */
function missingInputs(inputs: readonly string[], required: readonly (readonly string[])[]): string | null {
  const lacking = required.find((names) => !names.some((n) => inputs.includes(n)));
  return lacking ? lacking.join('/') : null;
}

function isMissing(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}

/** Scans `dir` (not recursively). Never throws for a file's fault; a missing directory is an empty catalog. */
export async function scanVoicesDir(dir: string): Promise<NeuralCatalog> {
  const catalog: NeuralCatalog = { models: { piper: [], kokoro: [] }, voices: [], problems: [] };
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (err) {
    if (isMissing(err)) return catalog;
    catalog.problems.push({ path: dir, reason: `cannot read the directory: ${err instanceof Error ? err.message : String(err)}` });
    return catalog;
  }
  const present = new Set(names);
  const problem = (file: string, reason: string): void => {
    catalog.problems.push({ path: join(dir, file), reason });
  };
  const voicesFiles = names.filter((n) => /^voices.*\.bin$/i.test(n));
  for (const name of names) {
    const path = join(dir, name);
    if (name.endsWith('.onnx.json')) {
      if (!present.has(name.slice(0, -5))) problem(name, `no model ${name.slice(0, -5)} beside it`);
      continue;
    }
    if (!name.endsWith('.onnx')) continue;
    const key = basename(name, '.onnx');
    // The folder changes while the service runs: a file removed since the listing is simply not there.
    const check = await checkOnnxFile(path).catch((err: unknown) =>
      isMissing(err) ? null : { ok: false as const, reason: err instanceof Error ? err.message : String(err) },
    );
    if (check === null) continue;
    if (!check.ok) {
      problem(name, check.reason);
      continue;
    }
    if (/^kokoro/i.test(key)) {
      const missing = missingInputs(check.inputs, [['tokens', 'input_ids'], ['style'], ['speed']]);
      if (missing) {
        problem(name, `not a Kokoro model: no ${missing} input (it has ${check.inputs.join(', ') || 'none'})`);
        continue;
      }
      const bundle = await kokoroBundle(dir, key, path, voicesFiles, problem);
      if (bundle) {
        catalog.models.kokoro.push(bundle);
        catalog.voices.push(...kokoroVoices(bundle));
      }
      continue;
    }
    if (!present.has(`${name}.json`)) {
      problem(name, `no ${name}.json beside it (a Piper voice is name.onnx + name.onnx.json)`);
      continue;
    }
    try {
      const size = (await stat(`${path}.json`)).size;
      if (size > PIPER_CONFIG_BOUNDS.fileBytes)
        throw new Error(`${size} bytes, more than a voice's config holds (${PIPER_CONFIG_BOUNDS.fileBytes})`);
      const model = parsePiperConfig(JSON.parse(await readFile(`${path}.json`, 'utf8')), key, path, await revisionOf(path, `${path}.json`));
      const missing = missingInputs(check.inputs, [
        ['input'],
        ['input_lengths'],
        ['scales'],
        ...(model.speakers.length > 0 ? [['sid']] : []),
      ]);
      if (missing) {
        problem(name, `does not match ${name}.json: no ${missing} input (it has ${check.inputs.join(', ') || 'none'})`);
        continue;
      }
      catalog.models.piper.push(model);
      catalog.voices.push(...piperVoices(model));
    } catch (err) {
      if (!isMissing(err)) problem(`${name}.json`, err instanceof Error ? err.message : String(err));
    }
  }
  // Two files giving the same voice id: the first (in name order) wins.
  const seen = new Set<string>();
  catalog.voices = catalog.voices.filter((v) => {
    if (seen.has(v.id)) {
      catalog.problems.push({ path: dir, reason: `voice id ${v.id} is given by more than one file; the first is kept` });
      return false;
    }
    seen.add(v.id);
    return true;
  });
  return catalog;
}

async function kokoroBundle(
  dir: string,
  key: string,
  onnxPath: string,
  voicesFiles: readonly string[],
  problem: (file: string, reason: string) => void,
): Promise<KokoroBundle | null> {
  // kokoro-v1.0.onnx (and its .fp16 and .int8 precisions) pairs with voices-v1.0.bin; a lone voices file of another
  // name is taken when it is the only one.
  const version = key.slice('kokoro'.length).replace(/\.(fp16|fp32|int8|uint8|q8|quant|quantized)$/i, '');
  const file =
    voicesFiles.find((f) => f.toLowerCase() === `voices${version}.bin`.toLowerCase()) ??
    (voicesFiles.length === 1 ? voicesFiles[0] : undefined);
  if (!file) {
    problem(`${key}.onnx`, `no voices${version}.bin beside it (a Kokoro bundle is kokoro-<v>.onnx + voices-<v>.bin)`);
    return null;
  }
  try {
    const vectors = await readStyleVectors(join(dir, file), (reason) => problem(file, reason));
    const revision = await revisionOf(onnxPath, join(dir, file));
    return { key, onnxPath, voicesPath: join(dir, file), revision, voices: [...vectors.keys()].sort() };
  } catch (err) {
    if (!isMissing(err)) problem(file, err instanceof Error ? err.message : String(err));
    return null;
  }
}
