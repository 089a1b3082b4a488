// A parsed request (Script) as the list of things the render loop does in order: speak a sentence with a voice
// at a rate and gain, insert silence, or pass a mark. Runs with the same prosody and voice are normalized and
// split into sentences together; a change of voice or prosody mid-sentence starts a new engine call there.
import { engineInfo, isEnglishVoice } from './registry.ts';
import { prepareMapped, type Break } from './text/index.ts';
import { concatMapped, mappedRun, standingFor, trimMapped, type MappedText } from './text/mapped.ts';
import { sayAsWords } from './text/say-as.ts';
import { applyLexicon, type LexiconEntry } from './text/lexicon.ts';
import { plainScript, type RunContext, type Script, type SpokenRun } from './text/script.ts';
import { checkExpandedLength } from './text/spoken-length.ts';
import { espeakPhonemeInput } from './text/ssml-phonemes.ts';
import type { VoiceSpec } from './voice-spec.ts';

export interface SpeechItem {
  type: 'speech';
  /** The text the engine gets, with each character's span in the request string. */
  mapped: MappedText;
  voice: VoiceSpec;
  /** Multiplier of the request speed. */
  rate: number;
  /** Linear gain on top of the voice's loudness normalization. */
  volume: number;
  /** The pause before it (the previous sentence's ending); none after an explicit break. */
  pause: Break;
}

export type PlanItem = SpeechItem | { type: 'silence'; seconds: number } | { type: 'mark'; name: string };

export interface PlanRequest {
  text: string;
  voice: VoiceSpec;
  script?: Script;
  voices?: { name: string; spec: VoiceSpec }[];
  lexicon?: LexiconEntry[];
  /** The most characters the script may speak once the lexicon is applied (see SpeechRequest.maxChars). */
  maxChars?: number;
}

const TERMINAL_END = /[.!?…。！？]["'”’)\]]*\s*$/u;
const CLAUSE_END = /[,;:—–]\s*$/u;

/** The voice a context speaks with. */
function voiceOf(req: PlanRequest, ctx: RunContext): VoiceSpec {
  if (ctx.voice === undefined) return req.voice;
  const found = req.voices?.find((v) => v.name === ctx.voice);
  // SpeechService resolves every <voice name> before the request reaches a worker.
  if (!found) throw new Error(`voice ${JSON.stringify(ctx.voice)} was not resolved`);
  return found.spec;
}

/** The voice with a context's pitch applied, on engines that have a pitch control; else unchanged. */
function withPitch(voice: VoiceSpec, ctx: RunContext): VoiceSpec {
  if (ctx.pitch === undefined && ctx.pitchHz === undefined && ctx.pitchShiftHz === undefined) return voice;
  const info = engineInfo(voice.engine);
  const model = info.pitch;
  if (!model || !info.capabilities.controls.includes('pitchHz') || !model.controllable(voice.base)) return voice;
  // Relative changes scale the voice's usual base pitch.
  const base = ctx.pitchHz ?? voice.controls?.pitchHz ?? model.naturalHz(voice.base);
  if (base === undefined) return voice;
  // The control need not be heard as itself (flite's target is calibrated per voice): ask for what is heard as hz.
  const hz = model.controlFor(voice.base, base * (ctx.pitch ?? 1) + (ctx.pitchShiftHz ?? 0));
  return { ...voice, controls: { ...voice.controls, pitchHz: Math.min(400, Math.max(40, hz)) } };
}

function sameContext(a: RunContext, b: RunContext): boolean {
  return (
    a.rate === b.rate &&
    a.pitch === b.pitch &&
    a.pitchHz === b.pitchHz &&
    a.pitchShiftHz === b.pitchShiftHz &&
    a.volume === b.volume &&
    a.voice === b.voice &&
    a.lang === b.lang
  );
}

/** A spoken run as text for the engine; phonemes become espeak's [[...]] where the engine reads them. */
function runText(run: SpokenRun, voice: VoiceSpec): { mapped: MappedText; raw: boolean } {
  const english = isEnglishVoice(voice);
  switch (run.type) {
    case 'text':
      return { mapped: mappedRun(run), raw: false };
    case 'sub':
      return { mapped: standingFor(run.alias, run.offset, run.offset + run.length), raw: false };
    case 'say-as':
      return { mapped: sayAsWords(run, english), raw: false };
    case 'phoneme': {
      // An engine without phoneme input says the written word (documented).
      const input = engineInfo(voice.engine).capabilities.phonemeInput ? espeakPhonemeInput(run.ph, run.alphabet) : undefined;
      if (input === undefined) return { mapped: standingFor(run.text, run.offset, run.offset + run.length), raw: false };
      return { mapped: standingFor(` ${input} `, run.offset, run.offset + run.length), raw: true };
    }
  }
}

/** The plan of a request: its script, or its text as plain text. */
export function planSpeech(req: PlanRequest): PlanItem[] {
  // Lexicon rules turn matching words into sub/phoneme runs, before any normalization: a rule matches the words
  // as the user wrote them, not as numbers and abbreviations were spelled out.
  const script = applyLexicon(req.script ?? plainScript(req.text), req.lexicon);
  // Aliases can make a text within the limit speak far more: checked on what will be said.
  if (req.lexicon) checkExpandedLength(script, req.maxChars);
  const out: PlanItem[] = [];
  let group: { parts: MappedText[]; context: RunContext; raw: boolean } | undefined;
  // What separates the next speech from the last one: a boundary's kind, a break (no extra pause) or nothing yet.
  let pending: Break | undefined;
  let lastText = '';

  const flush = (): void => {
    if (!group) return;
    const g = group;
    group = undefined;
    const voice = withPitch(voiceOf(req, g.context), g.context);
    const mapped = concatMapped(g.parts);
    const trimmed = trimMapped(mapped);
    const sentences = g.raw
      ? [{ text: trimmed.text, break: 'none' as Break, mapped: trimmed }]
      : prepareMapped(mapped, { english: isEnglishVoice(voice) });
    for (const s of sentences) {
      const pause: Break =
        pending ?? (lastText === '' ? 'none' : TERMINAL_END.test(lastText) ? 'sentence' : CLAUSE_END.test(lastText) ? 'clause' : 'none');
      out.push({ type: 'speech', mapped: s.mapped, voice, rate: g.context.rate ?? 1, volume: g.context.volume ?? 1, pause });
      pending = s.break === 'paragraph' ? 'paragraph' : s.break === 'sentence' || s.break === 'clause' ? s.break : undefined;
      // Within a group the splitter's own break says what follows; across groups the text's ending does.
      lastText = s.text;
    }
    pending = undefined;
  };

  for (const piece of script.pieces) {
    if (piece.type === 'break') {
      flush();
      out.push({ type: 'silence', seconds: piece.seconds });
      pending = 'none';
    } else if (piece.type === 'mark') {
      flush();
      out.push({ type: 'mark', name: piece.name });
    } else if (piece.type === 'boundary') {
      flush();
      if (pending !== 'none' && lastText !== '') pending = piece.kind;
    } else {
      const voice = voiceOf(req, piece.context);
      const { mapped, raw } = runText(piece, voice);
      if (group && (!sameContext(group.context, piece.context) || raw || group.raw)) flush();
      group ??= { parts: [], context: piece.context, raw };
      group.parts.push(mapped);
    }
  }
  flush();
  return out;
}
