// Which requests are SSML, and their parsing into a Script with the limits that apply to markup. Lives beside
// SpeechService, the one owner of value checks: every door gets the same answer for the same text.
import { AppError } from '../errors.ts';
import { parsePlainWithBreaks, parseSsml, SsmlError } from '../synth/text/ssml.ts';
import { spokenLength, type Script } from '../synth/text/script.ts';
import { checkExpandedLength, TextTooLongError } from '../synth/text/spoken-length.ts';

export type TextType = 'text' | 'ssml';
export const TEXT_TYPES: readonly TextType[] = ['text', 'ssml'];

/** Markup may be this many times longer than the spoken text limit (tags and attributes are not spoken). */
export const MARKUP_FACTOR = 4;

export interface ParsedText {
  /** Undefined for plain text without markup (the worker reads `text` itself). */
  script?: Script;
  /** Characters that are spoken: what MAX_TEXT_CHARS limits and usage counts. */
  spokenChars: number;
  /** The `<voice name>`s the script switches to. */
  voiceNames: string[];
  /** Seconds of silence the `<break>`s ask for, all together: audio that is made whatever the text. */
  breakSeconds: number;
}

/**
 * The start of an SSML document: a byte-order mark, an XML declaration and comments may come before the `<speak>`
 * root, as they do in files that SSML editors and other services' examples write. Each part matches in one pass.
 */
const SSML_START = /^\uFEFF?\s*(?:<\?xml\s[^?]*\?>\s*)?(?:<!--(?:[^-]|-(?!->))*-->\s*)*<speak[\s>/]/;

/** SSML when asked for, or when the text is an SSML document (SSML_START); plain text may carry `<break/>` tags alone. */
export function isSsml(text: string, textType: TextType | undefined): boolean {
  return textType === 'ssml' || (textType === undefined && SSML_START.test(text));
}

/** Parses a request's text; throws `ssml_invalid` (400) naming line, column and element, or `text_too_long`. */
export function parseRequestText(text: string, textType: TextType | undefined, maxTextChars: number): ParsedText {
  const ssml = isSsml(text, textType);
  const hasBreak = !ssml && /<break[\s/>]/.test(text);
  if (!ssml && !hasBreak) return { spokenChars: text.length, voiceNames: [], breakSeconds: 0 };
  if (text.length > maxTextChars * MARKUP_FACTOR) {
    throw new AppError(
      'text_too_long',
      `the markup is ${text.length} characters; the limit is ${maxTextChars * MARKUP_FACTOR} (${MARKUP_FACTOR} x MAX_TEXT_CHARS)`,
    );
  }
  let script: Script;
  try {
    script = ssml ? parseSsml(text) : parsePlainWithBreaks(text);
    // <sub> aliases and <say-as> spell-outs are what is said: limited as said (lexicon aliases: in the worker).
    checkExpandedLength(script, maxTextChars);
  } catch (e) {
    if (e instanceof SsmlError) throw new AppError('ssml_invalid', e.message);
    if (e instanceof TextTooLongError) throw new AppError('text_too_long', e.message);
    throw e;
  }
  const voiceNames = new Set<string>();
  let breakSeconds = 0;
  for (const p of script.pieces) {
    if (p.type === 'break') breakSeconds += p.seconds;
    else if (p.type !== 'mark' && p.type !== 'boundary' && p.context.voice !== undefined) voiceNames.add(p.context.voice);
  }
  return { script, spokenChars: spokenLength(script), voiceNames: [...voiceNames], breakSeconds };
}
