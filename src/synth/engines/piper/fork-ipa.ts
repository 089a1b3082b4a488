// Piper's voices were trained on the phonemes of Piper's own espeak-ng fork (rhasspy/espeak-ng 0f65aa30, the one
// piper-phonemize builds: upstream's data of May 2023). The espeak-ng Voxsmith bundles is later, and since then
// some phonemes are written in other IPA though espeak still chooses the same phoneme: those are written back
// here as the fork wrote them, by espeak's own name for the phoneme, in the phoneme table each voice uses.
// Measured against the fork itself (test/synth/piper-corpus/README.md).
import type { PhonemeRewrite } from '../espeak/phonemize.ts';

/** Per espeak voice: phoneme name → [IPA now, IPA in the fork] (a prefix of the phoneme's IPA). */
const FORK_IPA: Readonly<Record<string, Readonly<Record<string, readonly [string, string]>>>> = {
  // Upstream's horse-hoarse merger (April 2024) writes "o@" (door, four, more) as "ɔː(ɹ)" like "O@" (horse).
  'en-us': { 'o@': ['ɔː', 'oː'] },
  // Upstream gave the short "y" (Müller, fünf) the IPA "ʏ" in June 2024; the fork writes it "y".
  de: { y: ['ʏ', 'y'] },
};

/** How the phonemes of `espeakVoice` are written back to the fork's IPA; undefined where nothing differs. */
export function forkIpa(espeakVoice: string): PhonemeRewrite | undefined {
  const table = FORK_IPA[espeakVoice.toLowerCase()];
  if (!table) return undefined;
  return (name, ipa) => {
    const change = table[name];
    // The IPA carries the phoneme's stress mark before it.
    const stress = /^[ˈˌ]*/u.exec(ipa)?.[0] ?? '';
    const body = ipa.slice(stress.length);
    return change && body.startsWith(change[0]) ? stress + change[1] + body.slice(change[0].length) : ipa;
  };
}
