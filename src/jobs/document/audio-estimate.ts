// The audio a piece will hold, measured before anything is rendered, as the per-request audio cap measures it:
// every <break> (SSML, or the tags plain text may carry) as the silence it asks for, and the words as said once
// <sub> and lexicon aliases and <say-as> spell-outs are expanded, at the pace of normal speech. What MAX_JOB_CHARS
// counts (characters as written) says nothing of thirty 10 s breaks behind one word.
import { applyLexicon, type LexiconEntry } from '../../synth/text/lexicon.ts';
import { plainScript, type Script } from '../../synth/text/script.ts';
import { expandedLength } from '../../synth/text/spoken-length.ts';
import { parsePlainWithBreaks, parseSsml } from '../../synth/text/ssml.ts';

/**
 * Characters of normal speech per second at speed 1 (the engines say 13-16; MAX_TEXT_CHARS' 10 000 are about
 * 11 minutes): the higher end, so the estimate leans toward more audio, never toward less.
 */
export const SPEECH_CHARS_PER_SECOND = 15;

export interface PieceAudio {
  /** Seconds of silence its breaks ask for. */
  breakSeconds: number;
  /** Characters it says with every alias and spell-out expanded. */
  expandedChars: number;
}

/** The script of a plain-text piece: its `<break>` tags read as breaks, as /v1/speak reads them. */
export function plainPieceScript(text: string): Script {
  return /<break[\s/>]/.test(text) ? parsePlainWithBreaks(text) : plainScript(text);
}

export function pieceAudio(script: Script, lexicon: readonly LexiconEntry[] | undefined): PieceAudio {
  let breakSeconds = 0;
  for (const p of script.pieces) if (p.type === 'break') breakSeconds += p.seconds;
  return { breakSeconds, expandedChars: expandedLength(applyLexicon(script, lexicon)) };
}

/** Seconds of audio for `audio` spoken at `speed` (silence does not speed up). */
export function audioSeconds(audio: PieceAudio, speed: number): number {
  return audio.breakSeconds + audio.expandedChars / (SPEECH_CHARS_PER_SECOND * speed);
}

/**
 * What a job's piece is billed, in characters: as written, or more when the audio it holds says more: every alias
 * and spell-out as said, and its breaks' silence at SPEECH_CHARS_PER_SECOND (issue 44, J2: thirty 10 s breaks behind
 * a one-letter alias are 4 500 characters of usage, not 1). `ssml` as the plan read the piece.
 */
export function billedCharacters(text: string, ssml: boolean, lexicon: readonly LexiconEntry[] | undefined, written: number): number {
  const audio = pieceAudio(ssml ? parseSsml(text) : plainPieceScript(text), lexicon);
  return Math.max(written, audio.expandedChars + Math.ceil(audio.breakSeconds * SPEECH_CHARS_PER_SECOND));
}
