// Generates src/voices/builtin-voices.json, the built-in voice catalog, from the bundled espeak-ng build
// and the curated metadata in scripts/lib/espeak-languages.ts. Run it again after upgrading espeak-ng:
//   node --import tsx scripts/gen-voice-catalog.ts
// Every language voice espeak-ng lists is rendered by the engine (plain and with each slot's variant); only
// those that produce audible speech are kept. Voice ids are derived from the metadata, so regenerating keeps
// them stable.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../src/synth/engine.ts';
import { ESPEAK_VARIANTS, ESPEAK_VOICES, type EspeakVoiceEntry } from '../src/synth/engines/espeak/info.ts';
import { loadEngine } from '../src/synth/registry.ts';
import type { Gender, Voice } from '../src/voices/voice.ts';
import { ESPEAK_EXCLUDED, ESPEAK_LANGUAGES, type EspeakLanguageInfo } from './lib/espeak-languages.ts';
import { speaks } from './lib/speech-probe.ts';

const OUT = fileURLToPath(new URL('../src/voices/builtin-voices.json', import.meta.url));

/** Slots every language gets, then the extra ones for languages with four given names. */
interface Slot {
  gender: Gender;
  n: number;
  variant?: string;
  /** Style tag; the pitch order it implies is checked by test/voices/espeak-catalog.test.ts. */
  style?: string;
  sound: string;
  person: number;
}
const BASIC_SLOTS: Slot[] = [
  { gender: 'male', n: 1, sound: 'A plain, mid-pitched male voice.', person: 2 },
  { gender: 'female', n: 1, variant: 'f3', style: 'bright', sound: 'A bright, higher female voice.', person: 0 },
];
const MAJOR_SLOTS: Slot[] = [
  { gender: 'female', n: 2, variant: 'f4', style: 'warm', sound: 'A warmer, lower female voice.', person: 1 },
  { gender: 'male', n: 2, variant: 'm4', style: 'deep', sound: 'A deeper male voice.', person: 3 },
];

const englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

function primaryOf(tag: string): string {
  return tag.split('-')[0].toLowerCase();
}

function languageName(info: EspeakLanguageInfo): string {
  const name = info.language ?? englishNames.of(primaryOf(info.tag));
  if (!name) throw new Error(`no English name for ${info.tag}; add one to espeak-languages.ts`);
  return name;
}

function nativeName(info: EspeakLanguageInfo): string | undefined {
  if (info.native) return info.native;
  const primary = primaryOf(info.tag);
  try {
    const own = new Intl.DisplayNames([primary], { type: 'language', fallback: 'none' }).of(primary);
    return own && own.toLowerCase() !== primary ? own : undefined;
  } catch {
    return undefined;
  }
}

/** "Swahili (female)", "Swahili (female 2)", "Mandarin Chinese (Pinyin, female)". */
function describedName(variety: string, slot: Slot): string {
  const who = slot.n > 1 ? `${slot.gender} ${slot.n}` : slot.gender;
  return variety.endsWith(')') ? `${variety.slice(0, -1)}, ${who})` : `${variety} (${who})`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

async function espeakVoices(engine: Engine, entry: EspeakVoiceEntry, info: EspeakLanguageInfo): Promise<Voice[]> {
  const language = languageName(info);
  const own = nativeName(info);
  const native = own && own.toLowerCase() !== language.toLowerCase() ? own : undefined;
  const variety = info.label ?? language;
  const people = info.people ?? [];
  const slots = people.length >= 4 ? [...BASIC_SLOTS, ...MAJOR_SLOTS] : BASIC_SLOTS;
  const key = info.key ?? entry.base;
  const voices: Voice[] = [];
  for (const slot of slots) {
    const spec: Voice['spec'] = slot.variant
      ? { engine: 'espeak', base: entry.base, variant: slot.variant }
      : { engine: 'espeak', base: entry.base };
    // The engine throws for a voice espeak-ng cannot select, so a catalog entry is always one it speaks.
    if (!(await speaks(engine, spec))) {
      console.warn(`skip ${entry.base}${slot.variant ? `+${slot.variant}` : ''}: no audible output`);
      continue;
    }
    // Two given names are [female, male]; four are [female 1, female 2, male 1, male 2].
    const given = people.length === 2 ? people[slot.gender === 'female' ? 0 : 1] : people[slot.person];
    const name = given ?? describedName(variety, slot);
    const nativePart = native ? ` (${native})` : '';
    const sentences = [
      `${capitalize(slot.gender)} ${variety} voice${nativePart}: ${info.region.join(', ')}.`,
      slot.sound,
      info.note ? `It ${info.note}.` : '',
      'eSpeak NG formant synthesis: fast and intelligible, with a synthetic sound.',
    ];
    const tags = [...info.region];
    if (native && !tags.includes(native)) tags.push(native);
    if (slot.style) tags.push(slot.style);
    tags.push('espeak');
    voices.push({
      id: `espeak-${key}-${slot.gender}-${slot.n}`,
      name,
      language: info.tag,
      language_name: language,
      gender: slot.gender,
      engine: 'espeak',
      source: 'builtin',
      description: sentences.filter(Boolean).join(' '),
      tags,
      spec,
    });
  }
  return voices;
}

// flite's voices are fixed by the package; their metadata is written out here. The pitches in the
// descriptions were measured on Debian's flite 2.2 CLI, which ships the same four voices (the forge's own
// measurements are in forge-calibration.json).
const FLITE_VOICES: Voice[] = [
  {
    id: 'flite-slt',
    name: 'Sally',
    language: 'en-US',
    language_name: 'English',
    gender: 'female',
    engine: 'flite',
    source: 'builtin',
    description:
      'Female American English voice: United States. Clear and natural, pitch around 165 Hz; the most intelligible English voice here and the default. CMU Flite, speaker SLT of the CMU ARCTIC recordings.',
    tags: ['American', 'United States', 'US', 'USA', 'natural', 'clear', 'default', 'flite'],
    spec: { engine: 'flite', base: 'slt' },
  },
  {
    id: 'flite-awb',
    name: 'Alan',
    language: 'en-GB',
    language_name: 'English',
    gender: 'male',
    engine: 'flite',
    source: 'builtin',
    description:
      'Male Scottish English voice: Scotland, British, UK. Natural-sounding with a Scottish accent, pitch around 130 Hz. CMU Flite, speaker AWB of the CMU ARCTIC recordings.',
    tags: ['Scottish', 'Scotland', 'British', 'UK', 'natural', 'flite'],
    spec: { engine: 'flite', base: 'awb' },
  },
  {
    id: 'flite-rms',
    name: 'Richard',
    language: 'en-US',
    language_name: 'English',
    gender: 'male',
    engine: 'flite',
    source: 'builtin',
    description:
      'Male American English voice: United States. Natural-sounding and steady, pitch around 105 Hz. CMU Flite, speaker RMS of the CMU ARCTIC recordings.',
    tags: ['American', 'United States', 'US', 'USA', 'natural', 'flite'],
    spec: { engine: 'flite', base: 'rms' },
  },
  {
    id: 'flite-kal16',
    name: 'Kevin',
    language: 'en-US',
    language_name: 'English',
    gender: 'male',
    engine: 'flite',
    source: 'builtin',
    description:
      'Male American English voice: United States. A deep, classic diphone voice with a synthetic sound, pitch around 90 Hz. CMU Flite, voice KAL at 16 kHz.',
    tags: ['American', 'United States', 'US', 'USA', 'deep', 'classic', 'robotic', 'flite'],
    spec: { engine: 'flite', base: 'kal16' },
  },
];

async function main(): Promise<void> {
  const engine = await loadEngine('espeak');

  const genders = new Map(ESPEAK_VARIANTS.map((v) => [v.file, v.gender]));
  for (const slot of [...BASIC_SLOTS, ...MAJOR_SLOTS]) {
    if (slot.variant && genders.get(slot.variant) !== slot.gender) {
      throw new Error(`variant ${slot.variant} is not ${slot.gender} in this espeak-ng build`);
    }
  }

  const missing = ESPEAK_VOICES.filter((v) => !ESPEAK_LANGUAGES[v.base] && !ESPEAK_EXCLUDED[v.base]);
  if (missing.length > 0) {
    throw new Error(`no metadata for espeak voices: ${missing.map((v) => `${v.base} (${v.name})`).join(', ')}`);
  }

  const espeak: Voice[] = [];
  for (const entry of ESPEAK_VOICES) {
    const info = ESPEAK_LANGUAGES[entry.base];
    if (!info) continue;
    espeak.push(...(await espeakVoices(engine, entry, info)));
  }
  espeak.sort((a, b) => a.id.localeCompare(b.id));
  const voices = [...FLITE_VOICES, ...espeak];

  const ids = new Set<string>();
  for (const v of voices) {
    if (ids.has(v.id)) throw new Error(`duplicate voice id ${v.id}`);
    ids.add(v.id);
  }

  // One voice per line: small, and a regeneration shows up as a readable diff.
  writeFileSync(OUT, `[\n${voices.map((v) => JSON.stringify(v)).join(',\n')}\n]\n`);
  const languages = new Set(voices.map((v) => v.language));
  const female = voices.filter((v) => v.gender === 'female').length;
  console.log(
    `wrote ${voices.length} voices (${female} female, ${voices.length - female} male) in ${languages.size} language tags to ${OUT}`,
  );
}

await main();
