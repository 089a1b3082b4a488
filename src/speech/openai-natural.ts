// OpenAI's voice names onto the natural voices installed: each name keeps its gender (the built-in voice it maps
// to says which), and the names of one gender spread over the best voices of that gender, in this order, so
// `alloy` and `nova` differ when two female voices are installed.
import type { OpenAiVoiceName } from '../schemas/speech.ts';
import type { Gender } from '../voices/voice.ts';

/** Within each gender, the names in the order they take the installed voices (the most used first). */
const NAME_ORDER: readonly OpenAiVoiceName[] = [
  'alloy',
  'echo',
  'nova',
  'onyx',
  'shimmer',
  'fable',
  'coral',
  'ash',
  'sage',
  'ballad',
  'marin',
  'verse',
  'cedar',
];

/**
 * The voice `name` stands for among `candidates` (natural voices of its gender, best first; of any gender when
 * none has it). `genderOf` gives the gender of each name's built-in voice.
 */
export function naturalVoiceFor<T>(
  name: OpenAiVoiceName,
  gender: Gender,
  candidates: readonly T[],
  genderOf: (n: OpenAiVoiceName) => Gender,
): T | undefined {
  if (candidates.length === 0) return undefined;
  const sameGender = NAME_ORDER.filter((n) => genderOf(n) === gender);
  const at = Math.max(0, sameGender.indexOf(name));
  return candidates[at % candidates.length];
}
