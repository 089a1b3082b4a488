// The voice forge: clones a voice from an uploaded sample and breeds voices from two parents, storing
// the results as the caller's own voices. Routes call it; it never sees Fastify.
import { randomBytes, randomInt } from 'node:crypto';
import type { UploadContainer } from '../audio/decode.ts';
import { AppError } from '../errors.ts';
import type { BreedBody, CloneUpload } from '../schemas/forge.ts';
import type { VoiceSpec } from '../synth/voice-spec.ts';
import type { SpeechCaller, SpeechService } from '../speech/speech-service.ts';
import { MAX_SEED, breedGenomes } from './breed.ts';
import { breedNeural } from './breed-style.ts';
import { getBuiltinVoice } from '../voices/builtin.ts';
import { cloneCandidates, fitClone, nearestBase, notSpeechReason } from './clone.ts';
import { isValidLanguageQuery } from '../voices/filter.ts';
import type { AnalysisFailureKind } from './forge-protocol.ts';
import type { SpeechAnalyzer } from './forge-pool.ts';
import { genderOfPitch, genomeOfBuiltin, genomeToJson, genomeToSpec, parseGenome, type VoiceGenome } from './genome.ts';
import type { VoiceLibrary } from '../voices/library.ts';
import type { DbVoiceStore, OwnedVoice } from '../voices/owned-store.ts';
import { perceivedGender } from './speaker-features.ts';
import { toPublicVoice, type JsonValue, type PublicVoice, type Voice } from '../voices/voice.ts';

export { MAX_UPLOAD_BYTES } from '../schemas/forge.ts';
export const MIN_SAMPLE_SECONDS = 3;
export const MAX_SAMPLE_SECONDS = 120;
export const DEFAULT_CLONE_LANGUAGE = 'en';
export const DEFAULT_MUTATION_RATE = 0.2;

/** The request bodies, already checked against their schemas (src/schemas/forge.ts) by the routes. */
export type CloneInput = CloneUpload;
export type BreedInput = BreedBody;

export interface ForgeDeps {
  /** Renders a clone's fit in the caller's turn of the fair queue, unbilled. */
  speech: Pick<SpeechService, 'renderForFit'>;
  library: VoiceLibrary;
  store: DbVoiceStore;
  analyzer: SpeechAnalyzer;
  /** Renders a clone's fit may take; default 4. */
  fitRenders?: number;
}

/** What the owner sees of their own voice: the public fields plus its genome and how it was made. */
export type OwnedPublicVoice = PublicVoice & {
  genome: JsonValue;
  features?: JsonValue;
  mutation_rate?: number;
  seed?: number;
};

export function toOwnedPublicVoice(v: OwnedVoice): OwnedPublicVoice {
  const out: OwnedPublicVoice = { ...toPublicVoice(v), genome: v.genome };
  if (v.features !== undefined) out.features = v.features;
  if (v.mutation_rate !== undefined) out.mutation_rate = v.mutation_rate;
  if (v.seed !== undefined) out.seed = v.seed;
  return out;
}

const EXTENSIONS: Readonly<Record<UploadContainer, string>> = {
  wav: 'wav',
  mp3: 'mp3',
  'ogg-opus': 'opus',
  'ogg-vorbis': 'ogg',
  flac: 'flac',
};

const ANALYSIS_ERRORS: Readonly<
  Record<AnalysisFailureKind, 'unsupported_audio' | 'invalid_audio' | 'audio_too_long' | 'audio_too_short' | 'no_speech'>
> = {
  unsupported: 'unsupported_audio',
  corrupt: 'invalid_audio',
  empty: 'invalid_audio',
  too_long: 'audio_too_long',
  too_short: 'audio_too_short',
  no_speech: 'no_speech',
};

/** `clone-` / `breed-` and 12 random base-36 characters: URL-safe and unguessable enough to not collide. */
function newVoiceId(prefix: 'clone' | 'breed'): string {
  const bytes = randomBytes(12);
  let s = '';
  for (const b of bytes) s += (b % 36).toString(36);
  return `${prefix}-${s}`;
}

/** The schema bounds a name's length; what it says is the forge's rule: something besides spaces, and printable. */
/** Whitespace runs become one space; a transcript with no word in it counts as none. */
function normalizeTranscript(transcript: string | undefined): string | undefined {
  if (transcript === undefined) return undefined;
  const text = transcript.replace(/\s+/g, ' ').trim();
  if (/\p{Cc}/u.test(text)) throw new AppError('validation', 'transcript must not contain control characters');
  return /[\p{L}\p{N}]/u.test(text) ? text : undefined;
}

export function validateName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new AppError('validation', 'name must not be blank');
  if (/\p{Cc}/u.test(trimmed)) throw new AppError('validation', 'name must not contain control characters');
  // Bidi overrides and isolates make a name display as something else ("evil\u202Egnp.exe").
  if (/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u.test(trimmed))
    throw new AppError('validation', 'name must not contain bidirectional control characters');
  return trimmed;
}

function describeGenes(genome: VoiceGenome): string {
  const g = genome.genes;
  return `pitch around ${Math.round(g.pitch_hz)} Hz, speaking rate ${g.rate.toFixed(2)}x`;
}

export class VoiceForge {
  constructor(private readonly deps: ForgeDeps) {}

  /** `signal` aborts when the client leaves: a fit render still waiting for a worker then gives up its turn. */
  async clone(caller: SpeechCaller, input: CloneInput, signal: AbortSignal): Promise<OwnedVoice> {
    const ownerId = caller.userId;
    const name = validateName(input.name);
    const language = input.language === undefined || input.language === '' ? DEFAULT_CLONE_LANGUAGE : input.language;
    if (!isValidLanguageQuery(language)) throw new AppError('validation', 'language must be a BCP 47 language tag such as "en" or "en-GB"');
    const transcript = normalizeTranscript(input.transcript);
    const candidates = cloneCandidates(language);
    if (candidates.length === 0) throw new AppError('validation', `No base voice speaks "${language}"; see /api/voices for the languages`);

    const analysis = await this.deps.analyzer.analyzeUpload(input.audio, {
      minSeconds: MIN_SAMPLE_SECONDS,
      maxSeconds: MAX_SAMPLE_SECONDS,
    });
    if (!analysis.ok)
      throw new AppError(ANALYSIS_ERRORS[analysis.kind], `${analysis.message[0].toUpperCase()}${analysis.message.slice(1)}`);
    const sample = analysis.features;
    const notSpeech = notSpeechReason(sample);
    if (notSpeech) throw new AppError('not_speech', notSpeech);

    const base = nearestBase(sample, candidates, language);
    const render = (spec: VoiceSpec, text: string): Promise<Float32Array> => this.deps.speech.renderForFit(caller, spec, text, signal);
    const fit = await fitClone(render, this.deps.analyzer, sample, base, { maxRenders: this.deps.fitRenders, transcript });
    const last = fit.steps.find((s) => s.measured === fit.measured);
    const id = newVoiceId('clone');
    const genome = fit.genome;
    const voice: OwnedVoice = {
      id,
      name,
      language: base.language,
      language_name: base.language_name,
      gender: perceivedGender(sample),
      engine: genome.engine,
      source: 'clone',
      description:
        `Cloned from an uploaded ${Math.round(analysis.seconds ?? 0)} s sample: ${describeGenes(genome)}; ` +
        `built on ${base.name} (${base.engine}, ${base.language}).`,
      tags: ['clone', 'cloned', 'custom'],
      owner_id: ownerId,
      created_at: new Date().toISOString(),
      spec: genomeToSpec(genome),
      genome: genomeToJson(genome),
      features: {
        sample: { ...sample, seconds: analysis.seconds ?? 0, container: analysis.container ?? 'unknown' },
        clone: { ...fit.measured },
        base_voice: base.id,
        // On the held-out text: what a listener gets on new words. The fit-text errors are kept beside it.
        fit: {
          ...fit.held_out,
          rate_measure: fit.rate_measure,
          renders: fit.steps.length,
          pitch_error_st: Math.round((last?.pitch_error_st ?? 0) * 1000) / 1000,
          rate_error: Math.round((last?.rate_error ?? 0) * 1000) / 1000,
        },
      },
    };
    const container = analysis.container ?? 'wav';
    await this.deps.store.create(voice, { fileName: `${id}.${EXTENSIONS[container]}`, container, bytes: input.audio });
    return voice;
  }

  async breed(ownerId: string, input: BreedInput): Promise<OwnedVoice> {
    const name = validateName(input.name);
    const rate = input.mutation_rate ?? DEFAULT_MUTATION_RATE;
    const seed = input.seed ?? randomInt(0, MAX_SEED + 1);
    const [a, b] = await Promise.all([this.parent(input.parent_a, 'parent_a', ownerId), this.parent(input.parent_b, 'parent_b', ownerId)]);
    const styled = breedNeural(a, b, { mutationRate: rate, seed });
    if (styled) {
      const neural: OwnedVoice = {
        id: newVoiceId('breed'),
        name,
        language: styled.dominant.language,
        language_name: styled.dominant.language_name,
        gender: styled.gender,
        engine: 'kokoro',
        source: 'breed',
        description: `Bred from ${a.name} and ${b.name} (mutation rate ${rate}, seed ${seed}): a Kokoro style ${Math.round((1 - styled.shareB) * 100)}% ${a.name}, ${Math.round(styled.shareB * 100)}% ${b.name}.`,
        tags: ['bred', 'breed', 'custom', 'natural', 'neural', 'kokoro'],
        parents: [a.id, b.id],
        owner_id: ownerId,
        created_at: new Date().toISOString(),
        spec: styled.spec,
        genome: styled.genome,
        mutation_rate: rate,
        seed,
      };
      await this.deps.store.create(neural);
      return neural;
    }
    const child = breedGenomes(genomeOf(a), genomeOf(b), { mutationRate: rate, seed });
    const base = getBuiltinVoice(child.base_voice);
    const from = base ?? (child.base_voice === genomeOf(a).base_voice ? a : b);
    const voice: OwnedVoice = {
      id: newVoiceId('breed'),
      name,
      language: from.language,
      language_name: from.language_name,
      gender: genderOfPitch(child.genes.pitch_hz),
      engine: child.engine,
      source: 'breed',
      description: `Bred from ${a.name} and ${b.name} (mutation rate ${rate}, seed ${seed}): ${describeGenes(child)}; speaks like ${from.name}.`,
      tags: ['bred', 'breed', 'custom'],
      parents: [a.id, b.id],
      owner_id: ownerId,
      created_at: new Date().toISOString(),
      spec: genomeToSpec(child),
      genome: genomeToJson(child),
      mutation_rate: rate,
      seed,
    };
    await this.deps.store.create(voice);
    return voice;
  }

  private async parent(id: string, field: string, ownerId: string): Promise<Voice> {
    const voice = await this.deps.library.resolve(id, ownerId);
    if (!voice) throw new AppError('voice_not_found', `No voice "${id.slice(0, 100)}" (${field})`);
    return voice;
  }
}

function genomeOf(v: Voice): VoiceGenome {
  return v.source === 'builtin' ? genomeOfBuiltin(v) : parseGenome(v.genome);
}
