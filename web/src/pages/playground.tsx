import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { pcmBlobToWav } from '../audio/pcm.ts';
import { appConfig } from '../config.ts';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { VoiceSelect } from '../components/voice-select.tsx';
import { NaturalVoicesHint } from '../components/natural-hint.tsx';
import { bytes, count } from '../format.ts';
import { previewText } from '../previews.ts';
import { useLocation } from '../router.tsx';
import { useFailure } from '../session.ts';
import { startStream, type StreamProgress } from '../live-stream.ts';
import { SPEECH_FORMATS, SPEED_MAX, SPEED_MIN } from '../../../client/index.ts';
import type { AudioFormat, WordTiming } from '../types.ts';
import { useVoices } from '../voices-store.ts';

const FORMAT_LABELS: Record<AudioFormat, string> = {
  mp3: 'MP3',
  wav: 'WAV (16-bit)',
  opus: 'Opus (Ogg)',
  flac: 'FLAC',
  pcm: 'Raw PCM (16-bit, 24 kHz)',
  mulaw: 'μ-law WAV (8 kHz, telephony)',
  alaw: 'A-law WAV (8 kHz, telephony)',
};
const EXTENSIONS: Record<AudioFormat, string> = {
  mp3: 'mp3',
  wav: 'wav',
  opus: 'ogg',
  flac: 'flac',
  pcm: 'pcm',
  mulaw: 'wav',
  alaw: 'wav',
};
const DEFAULT_TEXT = 'Hello! This is Voxsmith, speech synthesis running on your own server.';
/** What the SSML switch offers to start from: a pause, emphasis, a spelled-out word, a slower phrase, a mark. */
const SSML_EXAMPLE = `<speak>
  Hello! <break time="400ms"/> This is <emphasis>Voxsmith</emphasis>.
  <say-as interpret-as="characters">SSML</say-as> sets pauses,
  <prosody rate="slow">the pace</prosody>, and how words are read: <say-as interpret-as="date" format="mdy">3/14/2025</say-as>.
  <mark name="end"/>
</speak>`;

/** English function words: a text where they are frequent is English (no other language shares many of them). */
const ENGLISH_WORDS = new Set(
  'the a an and or but of to in on at for with from by is are was were be been it this that these those you your we our they their he she his her i my me not no yes do does did have has had will would can could should there here what which who how'.split(
    ' ',
  ),
);

/** Whether the text reads as English: a fair share of its words are English function words. */
function looksEnglish(text: string): boolean {
  const words = text.toLowerCase().match(/[a-z']+/g) ?? [];
  if (words.length === 0) return false;
  const common = words.filter((w) => ENGLISH_WORDS.has(w)).length;
  return common >= Math.max(1, words.length * 0.15);
}

/** The sample-line offer makes sense unless the text is that language's line, or is already English for an English voice. */
function offersSample(text: string, voice: { language: string }): boolean {
  if (text.trim() === previewText(voice)) return false;
  return !(voice.language.toLowerCase().startsWith('en') && looksEnglish(text));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** SSML between the words as a reader sees it: the tags (and comments, declarations) gone, entities read. */
function spokenPart(markup: string): string {
  return markup
    .replace(/<!--[\s\S]*?-->|<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name])
    .replace(/\s+/g, ' ');
}

/**
 * The text with each timed word wrapped, the one being spoken marked: offsets index the text as sent. SSML shows
 * as what is spoken, its tags left out.
 */
function SpokenText({ text, words, current, ssml }: { text: string; words: readonly WordTiming[]; current: number; ssml: boolean }) {
  const between = (from: number, to: number): string => (ssml ? spokenPart(text.slice(from, to)) : text.slice(from, to));
  const parts: Array<string | { word: WordTiming; i: number }> = [];
  let at = 0;
  words.forEach((word, i) => {
    if (word.offset < at || word.offset + word.length > text.length) return;
    if (word.offset > at) parts.push(between(at, word.offset));
    parts.push({ word, i });
    at = word.offset + word.length;
  });
  if (at < text.length) parts.push(between(at, text.length));
  if (ssml && parts.length > 0) {
    if (typeof parts[0] === 'string') parts[0] = parts[0].trimStart();
    const last = parts.length - 1;
    if (typeof parts[last] === 'string') parts[last] = (parts[last] as string).trimEnd();
  }
  return (
    <p className="spoken-text" data-testid="spoken-text">
      {parts.map((part, k) =>
        typeof part === 'string' ? (
          part
        ) : (
          <mark
            key={k}
            className={part.i === current ? 'current' : undefined}
            data-word={part.i}
            aria-current={part.i === current ? 'true' : undefined}
          >
            {text.slice(part.word.offset, part.word.offset + part.word.length)}
          </mark>
        ),
      )}
    </p>
  );
}

/** The index of the word being spoken at `time` (seconds), or -1 between words and outside them. */
function wordAt(words: readonly WordTiming[], time: number): number {
  for (let i = 0; i < words.length; i++) if (time >= words[i].start && time < Math.max(words[i].end, words[i].start + 0.05)) return i;
  return -1;
}

interface Result {
  url: string;
  playUrl: string;
  format: AudioFormat;
  size: number;
  ms: number;
  /** The text as sent (SSML markup when `ssml`), and its words' times in the audio. */
  text: string;
  ssml: boolean;
  words: WordTiming[];
}

const MIME: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  pcm: 'audio/pcm',
  mulaw: 'audio/wav',
  alaw: 'audio/wav',
};

function base64Blob(base64: string, type: string): Blob {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type });
}

export function PlaygroundPage() {
  const fail = useFailure();
  const { query } = useLocation();
  const voices = useVoices();
  const [text, setText] = useState(DEFAULT_TEXT);
  const [voiceId, setVoiceId] = useState(query.get('voice') ?? 'default');
  const [speed, setSpeed] = useState(1);
  const [format, setFormat] = useState<AudioFormat>('mp3');
  const [ssml, setSsml] = useState(false);
  const [currentWord, setCurrentWord] = useState(-1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [stream, setStream] = useState<StreamProgress | null>(null);
  const streamHandle = useRef<{ cancel: () => void } | null>(null);
  const audio = useRef<HTMLAudioElement>(null);

  const chosen = voices.voices?.find((v) => v.id === voiceId);
  const tooLong = text.length > appConfig.maxTextChars;
  const why = tooLong
    ? `The text is ${count(text.length - appConfig.maxTextChars)} characters over this server’s limit of ${count(appConfig.maxTextChars)}: shorten it to speak or stream it.`
    : text.trim() === ''
      ? 'Type some text to speak.'
      : null;
  const streaming = stream !== null && (stream.state === 'connecting' || stream.state === 'streaming' || stream.state === 'draining');

  // A link to another voice (e.g. "Try it" on a voice page) while the playground is open switches to it.
  const linkedVoice = query.get('voice');
  useEffect(() => {
    if (linkedVoice) setVoiceId(linkedVoice);
  }, [linkedVoice]);

  useEffect(
    () => () => {
      streamHandle.current?.cancel();
    },
    [],
  );

  useEffect(
    () => () => {
      if (result) {
        URL.revokeObjectURL(result.url);
        if (result.playUrl !== result.url) URL.revokeObjectURL(result.playUrl);
      }
    },
    [result],
  );

  async function speak(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    const started = performance.now();
    try {
      // With its word timings, so the words light up as they are spoken.
      const spoken = await api.speakWithTimestamps({
        text,
        voice_id: voiceId,
        speed,
        format,
        ...(ssml ? { text_type: 'ssml' as const } : {}),
      });
      const blob = base64Blob(spoken.audio, MIME[format]);
      const url = URL.createObjectURL(blob);
      // Raw PCM has no header for a player to read; play a WAV-wrapped copy, download the raw bytes.
      const playUrl = format === 'pcm' ? URL.createObjectURL(await pcmBlobToWav(blob, spoken.sample_rate)) : url;
      setCurrentWord(-1);
      setResult({ url, playUrl, format, size: blob.size, ms: performance.now() - started, text, ssml, words: spoken.words });
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (result && audio.current) void audio.current.play().catch(() => undefined);
  }, [result]);

  // Follows playback frame by frame (timeupdate fires only ~4 times a second, too seldom for words).
  useEffect(() => {
    const element = audio.current;
    if (!result || !element || result.words.length === 0) return;
    let frame = 0;
    const tick = () => {
      setCurrentWord(element.ended ? -1 : wordAt(result.words, element.currentTime));
      if (!element.paused && !element.ended) frame = requestAnimationFrame(tick);
    };
    const start = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    element.addEventListener('play', start);
    element.addEventListener('seeked', tick);
    element.addEventListener('ended', tick);
    if (!element.paused) start();
    return () => {
      cancelAnimationFrame(frame);
      element.removeEventListener('play', start);
      element.removeEventListener('seeked', tick);
      element.removeEventListener('ended', tick);
    };
  }, [result]);

  function toggleStream() {
    if (streaming) {
      streamHandle.current?.cancel();
      return;
    }
    setError(null);
    audio.current?.pause();
    streamHandle.current = startStream({ text, voice_id: voiceId, speed, ...(ssml ? { text_type: 'ssml' as const } : {}) }, setStream);
  }

  return (
    <Page
      title="Playground"
      intro="Type something, pick a voice, and listen. “Speak” makes a file; “Stream” plays it live as it is synthesized."
    >
      <NaturalVoicesHint />
      <form className="card playground" onSubmit={(e) => void speak(e)}>
        <div className="ssml-row">
          <label htmlFor="pg-ssml">
            <input
              id="pg-ssml"
              type="checkbox"
              checked={ssml}
              onChange={(e) => setSsml(e.target.checked)}
              aria-describedby="pg-ssml-help"
            />
            SSML
          </label>
          {ssml ? (
            <button type="button" className="link" onClick={() => setText(SSML_EXAMPLE)}>
              Use an SSML example
            </button>
          ) : null}
          <small id="pg-ssml-help">
            {ssml
              ? 'The text is SSML markup: <break>, <prosody>, <say-as>, <emphasis>, <sub>, <phoneme>, <mark>.'
              : 'Plain text (a <break time="1s"/> still pauses).'}
          </small>
        </div>
        <div className="field">
          <label htmlFor="pg-text">{ssml ? 'SSML' : 'Text'}</label>
          <textarea
            id="pg-text"
            rows={5}
            value={text}
            onChange={(e) => setText(e.target.value)}
            required
            aria-describedby="pg-text-count"
            aria-invalid={tooLong}
          />
          <small id="pg-text-count" className={tooLong ? 'error' : undefined}>
            {count(text.length)} / {count(appConfig.maxTextChars)} characters
          </small>
        </div>
        <div className="field-row">
          <VoiceSelect id="pg-voice" label="Voice" voices={voices.voices} value={voiceId} onChange={setVoiceId} allowDefault />
          <div className="field">
            <label htmlFor="pg-format">Format</label>
            <select id="pg-format" value={format} onChange={(e) => setFormat(e.target.value as AudioFormat)}>
              {SPEECH_FORMATS.map((f) => (
                <option key={f} value={f}>
                  {FORMAT_LABELS[f]}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="field">
          <label htmlFor="pg-speed">
            Speed <output htmlFor="pg-speed">{speed.toFixed(2)}×</output>
          </label>
          <input
            id="pg-speed"
            type="range"
            min={SPEED_MIN}
            max={SPEED_MAX}
            step={0.05}
            value={speed}
            onChange={(e) => setSpeed(Number(e.target.value))}
          />
        </div>
        {chosen ? (
          <p className="hint">
            {chosen.name} speaks {chosen.language_name}.{' '}
            {offersSample(text, chosen) ? (
              <button type="button" className="link" onClick={() => setText(previewText(chosen))}>
                Use a sample line in {chosen.language_name}
              </button>
            ) : null}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={busy || streaming || why !== null} aria-describedby={why ? 'pg-why' : undefined}>
            {busy ? 'Speaking…' : 'Speak'}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={toggleStream}
            disabled={busy || (!streaming && why !== null)}
            aria-describedby={why ? 'pg-why' : undefined}
          >
            {streaming ? 'Stop stream' : 'Stream'}
          </button>
        </div>
        {why ? (
          <p className="why-disabled" id="pg-why" data-testid="why-disabled">
            {why}
          </p>
        ) : null}
        <ErrorText>{error}</ErrorText>
      </form>

      {result ? (
        <section className="card" aria-labelledby="result-heading">
          <h2 id="result-heading">Result</h2>
          <audio ref={audio} controls src={result.playUrl} data-testid="speak-audio">
            Your browser cannot play this format; download it instead.
          </audio>
          {result.words.length > 0 ? <SpokenText text={result.text} ssml={result.ssml} words={result.words} current={currentWord} /> : null}
          <p className="meta">
            {FORMAT_LABELS[result.format]} · {bytes(result.size)} · ready in {Math.round(result.ms)} ms
          </p>
          <a className="button quiet" href={result.url} download={`speech.${EXTENSIONS[result.format]}`}>
            Download speech.{EXTENSIONS[result.format]}
          </a>
        </section>
      ) : null}

      {stream ? (
        <section className="card" aria-labelledby="stream-heading">
          <h2 id="stream-heading">Live stream</h2>
          <StatusText>
            {stream.state === 'connecting'
              ? 'Connecting…'
              : stream.state === 'streaming'
                ? 'Streaming…'
                : stream.state === 'draining'
                  ? 'All audio received; playing the rest…'
                  : stream.state === 'done'
                    ? 'Done.'
                    : stream.state === 'cancelled'
                      ? 'Stopped.'
                      : 'The stream failed.'}
          </StatusText>
          <ErrorText>{stream.error}</ErrorText>
          <dl
            className="stats"
            data-testid="stream-stats"
            data-state={stream.state}
            data-chunks={stream.chunks}
            data-first-audio-ms={stream.firstAudioMs === null ? '' : stream.firstAudioMs.toFixed(1)}
            data-seconds={stream.seconds.toFixed(3)}
          >
            <div>
              <dt>Time to first audio</dt>
              <dd>{stream.firstAudioMs === null ? '—' : `${Math.round(stream.firstAudioMs)} ms`}</dd>
            </div>
            <div>
              <dt>First sound after</dt>
              <dd>{stream.firstSoundMs === null ? '—' : `${Math.round(stream.firstSoundMs)} ms`}</dd>
            </div>
            <div>
              <dt>Chunks</dt>
              <dd>{stream.chunks}</dd>
            </div>
            <div>
              <dt>Audio received</dt>
              <dd>{stream.seconds.toFixed(2)} s</dd>
            </div>
            <div>
              <dt>Gaps</dt>
              <dd>{stream.underruns}</dd>
            </div>
          </dl>
        </section>
      ) : null}
    </Page>
  );
}
