import { useEffect, useRef, useState, type FormEvent } from 'react';
import { speakBlob } from '../api.ts';
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
import { SPEECH_FORMATS, SPEED_MAX, SPEED_MIN, STREAM_SAMPLE_RATE } from '../../../client/index.ts';
import type { AudioFormat } from '../types.ts';
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
const EXTENSIONS: Record<AudioFormat, string> = { mp3: 'mp3', wav: 'wav', opus: 'ogg', flac: 'flac', pcm: 'pcm', mulaw: 'wav', alaw: 'wav' };
const DEFAULT_TEXT = 'Hello! This is Voxsmith, speech synthesis running on your own server.';

interface Result {
  url: string;
  playUrl: string;
  format: AudioFormat;
  size: number;
  ms: number;
}

export function PlaygroundPage() {
  const fail = useFailure();
  const { query } = useLocation();
  const voices = useVoices();
  const [text, setText] = useState(DEFAULT_TEXT);
  const [voiceId, setVoiceId] = useState(query.get('voice') ?? 'default');
  const [speed, setSpeed] = useState(1);
  const [format, setFormat] = useState<AudioFormat>('mp3');
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
      const blob = await speakBlob({ text, voice_id: voiceId, speed, format });
      const url = URL.createObjectURL(blob);
      // Raw PCM has no header for a player to read; play a WAV-wrapped copy, download the raw bytes.
      const playUrl = format === 'pcm' ? URL.createObjectURL(await pcmBlobToWav(blob, STREAM_SAMPLE_RATE)) : url;
      setResult({ url, playUrl, format, size: blob.size, ms: performance.now() - started });
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (result && audio.current) void audio.current.play().catch(() => undefined);
  }, [result]);

  function toggleStream() {
    if (streaming) {
      streamHandle.current?.cancel();
      return;
    }
    setError(null);
    audio.current?.pause();
    streamHandle.current = startStream({ text, voice_id: voiceId, speed }, setStream);
  }

  return (
    <Page title="Playground" intro="Type something, pick a voice, and listen. “Speak” makes a file; “Stream” plays it live as it is synthesized.">
      <NaturalVoicesHint />
      <form className="card playground" onSubmit={(e) => void speak(e)}>
        <div className="field">
          <label htmlFor="pg-text">Text</label>
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
          <input id="pg-speed" type="range" min={SPEED_MIN} max={SPEED_MAX} step={0.05} value={speed} onChange={(e) => setSpeed(Number(e.target.value))} />
        </div>
        {chosen ? (
          <p className="hint">
            {chosen.name} speaks {chosen.language_name}.{' '}
            <button type="button" className="link" onClick={() => setText(previewText(chosen))}>
              Use a sample line in {chosen.language_name}
            </button>
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
