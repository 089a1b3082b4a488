import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { MAX_NAME_CHARS, MAX_TRANSCRIPT_CHARS } from '../../../src/schemas/field-limits.ts';
import { api } from '../api.ts';
import { canRecord, startRecording, type Recording } from '../audio/recorder.ts';
import { CloneFit } from '../components/clone-fit.tsx';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { PlayButton } from '../components/play-button.tsx';
import { VoiceSelect } from '../components/voice-select.tsx';
import { bytes, seconds } from '../format.ts';
import { Link } from '../router.tsx';
import { useFailure } from '../session.ts';
import type { Voice } from '../types.ts';
import { reloadVoices, useVoices } from '../voices-store.ts';

// The service's limits for a voice sample, checked here so a wrong file is refused before its upload (the service
// checks them again and explains refusals).
export const CLONE_MAX_BYTES = 10 * 1024 * 1024;
export const CLONE_MIN_SECONDS = 3;
export const CLONE_MAX_SECONDS = 120;
const ACCEPT = 'audio/wav,audio/x-wav,audio/mpeg,audio/ogg,audio/opus,audio/flac,.wav,.mp3,.ogg,.opus,.oga,.flac';

interface Sample {
  blob: Blob;
  fileName: string;
  /** Null when the browser cannot decode it; the service may still, and will say if not. */
  duration: number | null;
  url: string;
}

async function measure(blob: Blob): Promise<number | null> {
  const context = new AudioContext();
  try {
    const decoded = await context.decodeAudioData(await blob.arrayBuffer());
    return decoded.duration;
  } catch {
    return null;
  } finally {
    await context.close();
  }
}

/** The reasons a sample will be refused, in words, before anything is uploaded. */
function sampleProblem(sample: Sample): string | null {
  if (sample.blob.size === 0) return 'The file is empty.';
  if (sample.blob.size > CLONE_MAX_BYTES)
    return `The file is ${bytes(sample.blob.size)}; the limit is ${bytes(CLONE_MAX_BYTES)}. Trim it or use a compressed format such as MP3.`;
  if (sample.duration !== null && sample.duration < CLONE_MIN_SECONDS)
    return `The recording is ${seconds(sample.duration)} long; at least ${CLONE_MIN_SECONDS} seconds of speech are needed.`;
  if (sample.duration !== null && sample.duration > CLONE_MAX_SECONDS)
    return `The recording is ${seconds(sample.duration)} long; the limit is ${CLONE_MAX_SECONDS} seconds.`;
  return null;
}

function languageTags(voices: Voice[] | null): Array<{ tag: string; label: string }> {
  const seen = new Map<string, string>();
  for (const v of voices ?? []) if (!seen.has(v.language)) seen.set(v.language, `${v.language_name} (${v.language})`);
  return [...seen.entries()].map(([tag, label]) => ({ tag, label })).sort((a, b) => a.label.localeCompare(b.label));
}

function NewVoice({ voice, heading }: { voice: Voice; heading: string }) {
  return (
    <div className="new-voice" role="group" aria-label={heading}>
      <p>
        <strong>{voice.name}</strong> ({voice.language_name}, {voice.gender}) is ready: <code>{voice.id}</code>
      </p>
      <CloneFit voice={voice} />
      <div className="actions">
        <PlayButton voice={voice} />
        <Link to={`/?voice=${encodeURIComponent(voice.id)}`} className="button quiet">
          Use in the playground
        </Link>
        <Link to={`/voices/${encodeURIComponent(voice.id)}`} className="button quiet">
          Family tree
        </Link>
        <Link to="/voices" className="button quiet">
          See your voices
        </Link>
      </div>
    </div>
  );
}

/** A passage phoneticians use for exactly this ("The North Wind and the Sun"): it covers the sounds of English. */
const READ_ALOUD =
  'The North Wind and the Sun were disputing which was the stronger, when a traveller came along wrapped in a warm cloak. ' +
  'They agreed that the one who first succeeded in making the traveller take his cloak off should be considered stronger than the other. ' +
  'Then the North Wind blew as hard as he could, but the more he blew the more closely did the traveller fold his cloak around him; ' +
  'and at last the North Wind gave up the attempt. Then the Sun shone out warmly, and immediately the traveller took off his cloak.';

/** Speech RMS spans decades: a square root spreads quiet talk across the meter instead of a sliver at the left. */
function meterValue(rms: number): number {
  return Math.min(1, Math.sqrt(rms) * 1.2);
}

function CloneForm() {
  const fail = useFailure();
  const voices = useVoices();
  const [mode, setMode] = useState<'file' | 'record'>('file');
  const [sample, setSample] = useState<Sample | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [transcript, setTranscript] = useState('');
  const [language, setLanguage] = useState('en-US');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<Voice | null>(null);
  const [recording, setRecording] = useState<Recording | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [level, setLevel] = useState(0);
  // The take in progress, for stopping the microphone if the page goes away mid-recording.
  const live = useRef<Recording | null>(null);
  const tags = useMemo(() => languageTags(voices.voices), [voices.voices]);

  useEffect(() => () => void (sample && URL.revokeObjectURL(sample.url)), [sample]);

  const adoptSample = useCallback(async (blob: Blob, fileName: string) => {
    const duration = await measure(blob);
    const next: Sample = { blob, fileName, duration, url: URL.createObjectURL(blob) };
    setSample(next);
    setProblem(sampleProblem(next));
  }, []);

  const stopRecording = useCallback(async () => {
    const take = recording;
    if (!take) return;
    setRecording(null);
    try {
      await adoptSample(await take.stop(), 'recording.wav');
    } catch (err) {
      setError(`The recording could not be read: ${fail(err)}`);
    }
  }, [recording, adoptSample, fail]);

  useEffect(() => {
    if (!recording) return;
    const timer = window.setInterval(() => {
      const s = (performance.now() - recording.startedAt) / 1000;
      setElapsed(s);
      setLevel(recording.level());
      if (s >= CLONE_MAX_SECONDS) void stopRecording();
    }, 100);
    return () => window.clearInterval(timer);
  }, [recording, stopRecording]);

  useEffect(() => {
    live.current = recording;
  }, [recording]);
  useEffect(() => () => live.current?.cancel(), []);

  async function pickFile(file: File | undefined) {
    setError(null);
    setCreated(null);
    if (!file) {
      setSample(null);
      setProblem(null);
      return;
    }
    if (file.size > CLONE_MAX_BYTES) {
      setSample(null);
      setProblem(
        `The file is ${bytes(file.size)}; the limit is ${bytes(CLONE_MAX_BYTES)}. Trim it or use a compressed format such as MP3.`,
      );
      return;
    }
    await adoptSample(file, file.name);
    if (!name) setName(file.name.replace(/\.[^.]+$/, '').slice(0, 60));
  }

  async function record() {
    setError(null);
    setCreated(null);
    setProblem(null);
    try {
      setElapsed(0);
      setLevel(0);
      setRecording(await startRecording());
      if (language.toLowerCase().startsWith('en') && transcript.trim() === '') setTranscript(READ_ALOUD);
    } catch (err) {
      const denied = err instanceof DOMException && (err.name === 'NotAllowedError' || err.name === 'SecurityError');
      setError(
        denied
          ? 'The browser did not allow the microphone. Allow it for this site, or upload a file instead.'
          : `The microphone could not start: ${fail(err)}`,
      );
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!sample) {
      setError(mode === 'file' ? 'Choose an audio file first.' : 'Record a sample first.');
      return;
    }
    const why = sampleProblem(sample);
    if (why) {
      setProblem(why);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      setCreated(
        await api.clone({
          name: name.trim(),
          language,
          transcript: transcript.trim() || undefined,
          audio: sample.blob,
          filename: sample.fileName,
        }),
      );
      await reloadVoices();
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="clone-heading">
      <h2 id="clone-heading">Clone a voice</h2>
      <p id="clone-what">
        A clone does not copy the speaker’s timbre. It picks the built-in voice that sounds nearest to the sample (same language and gender,
        nearest pitch and vocal tract) and fits that voice’s <strong>pitch, intonation and pace</strong> to the speaker: it sounds like the
        base voice speaking at their pitch and pace, not like the person.
      </p>
      <p id="clone-limits" className="limits">
        Give a sample of one person speaking: <strong>WAV, MP3, Ogg (Opus or Vorbis) or FLAC</strong>, at most{' '}
        <strong>{bytes(CLONE_MAX_BYTES)}</strong> and{' '}
        <strong>
          {CLONE_MIN_SECONDS} to {CLONE_MAX_SECONDS} seconds
        </strong>{' '}
        long. Clear speech with little background noise works best; only clone voices you have permission to use.
      </p>
      <form onSubmit={(e) => void submit(e)} aria-describedby="clone-limits">
        <fieldset className="segmented">
          <legend>Sample</legend>
          <label>
            <input type="radio" name="clone-mode" value="file" checked={mode === 'file'} onChange={() => setMode('file')} /> Upload a file
          </label>
          <label>
            <input
              type="radio"
              name="clone-mode"
              value="record"
              checked={mode === 'record'}
              onChange={() => setMode('record')}
              disabled={!canRecord()}
            />{' '}
            Record with the microphone
          </label>
        </fieldset>
        {mode === 'file' ? (
          <div className="field">
            <label htmlFor="clone-file">Audio file</label>
            <input
              id="clone-file"
              type="file"
              accept={ACCEPT}
              onChange={(e) => void pickFile(e.target.files?.[0])}
              aria-describedby="clone-limits"
            />
          </div>
        ) : (
          <div className="field recorder">
            <p className="hint" id="read-aloud-help">
              Read this aloud at your normal pace (about 20 seconds). It is filled in as the transcript, which helps the clone keep your
              pace.
            </p>
            <blockquote className="read-aloud" lang="en" data-testid="read-aloud">
              {READ_ALOUD}
            </blockquote>
            {recording ? (
              <button type="button" className="danger" onClick={() => void stopRecording()}>
                Stop recording ({seconds(elapsed)})
              </button>
            ) : (
              <button type="button" onClick={() => void record()} aria-describedby="read-aloud-help">
                {sample?.fileName === 'recording.wav' ? 'Record again' : 'Start recording'}
              </button>
            )}
            {recording ? (
              <div className="level">
                <label htmlFor="mic-level">Input level</label>
                <meter
                  id="mic-level"
                  className="level-meter"
                  min={0}
                  max={1}
                  low={0.02}
                  high={0.7}
                  optimum={0.2}
                  value={meterValue(level)}
                  data-testid="level-meter"
                  data-level={level.toFixed(4)}
                />
                <small>
                  {level < 0.005
                    ? 'Nothing heard yet: check the microphone.'
                    : level > 0.7
                      ? 'Very loud: move back a little.'
                      : 'Good level.'}
                </small>
              </div>
            ) : null}
            <StatusText>{recording ? `Recording… ${Math.floor(elapsed)} s (read for at least ${CLONE_MIN_SECONDS} s)` : ''}</StatusText>
          </div>
        )}
        {sample ? (
          <div className="sample">
            <audio controls src={sample.url} aria-label="The sample" />
            <span className="meta">
              {sample.fileName} · {bytes(sample.blob.size)}
              {sample.duration !== null ? ` · ${seconds(sample.duration)}` : ''}
            </span>
          </div>
        ) : null}
        <ErrorText>{problem}</ErrorText>
        <div className="field-row">
          <div className="field">
            <label htmlFor="clone-name">Name</label>
            <input id="clone-name" required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="clone-language">Language spoken</label>
            <select id="clone-language" value={language} onChange={(e) => setLanguage(e.target.value)}>
              {tags.length === 0 ? <option value="en-US">English (en-US)</option> : null}
              {tags.map((t) => (
                <option key={t.tag} value={t.tag}>
                  {t.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="field">
          <label htmlFor="clone-transcript">What the sample says (optional: keeps the speaker’s pace more exactly)</label>
          <textarea
            id="clone-transcript"
            rows={2}
            maxLength={MAX_TRANSCRIPT_CHARS}
            value={transcript}
            onChange={(e) => setTranscript(e.target.value)}
          />
        </div>
        <button type="submit" disabled={busy || recording !== null || problem !== null}>
          {busy ? 'Cloning… (this takes a few seconds)' : 'Clone voice'}
        </button>
        <ErrorText>{error}</ErrorText>
      </form>
      {created ? <NewVoice voice={created} heading="The cloned voice" /> : null}
    </section>
  );
}

function BreedForm() {
  const fail = useFailure();
  const voices = useVoices();
  const [parentA, setParentA] = useState('');
  const [parentB, setParentB] = useState('');
  const [name, setName] = useState('');
  const [mutation, setMutation] = useState(0.2);
  const [seed, setSeed] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [child, setChild] = useState<{ voice: Voice; a: Voice | undefined; b: Voice | undefined } | null>(null);
  const result = useRef<HTMLElement>(null);

  useEffect(() => {
    if (child) result.current?.focus();
  }, [child]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!parentA || !parentB) {
      setError('Pick both parents.');
      return;
    }
    const seedValue = seed.trim() === '' ? undefined : Number(seed);
    if (seedValue !== undefined && (!Number.isSafeInteger(seedValue) || seedValue < 0)) {
      setError('The seed must be a whole number (0 or more), or empty for a random one.');
      return;
    }
    setBusy(true);
    try {
      const a = voices.voices?.find((v) => v.id === parentA);
      const b = voices.voices?.find((v) => v.id === parentB);
      const voice = await api.breed({
        parent_a: parentA,
        parent_b: parentB,
        name: name.trim(),
        mutation_rate: mutation,
        ...(seedValue !== undefined ? { seed: seedValue } : {}),
      });
      setChild({ voice, a, b });
      await reloadVoices();
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="breed-heading">
      <h2 id="breed-heading">Breed a voice</h2>
      <p>Pick two parents: the child mixes their traits (pitch, pace, timbre), and the mutation rate adds some of its own.</p>
      <form onSubmit={(e) => void submit(e)}>
        <div className="field-row">
          <VoiceSelect id="breed-a" label="Parent A" voices={voices.voices} value={parentA} onChange={setParentA} required />
          <VoiceSelect id="breed-b" label="Parent B" voices={voices.voices} value={parentB} onChange={setParentB} required />
        </div>
        <div className="field-row">
          <div className="field">
            <label htmlFor="breed-name">Name of the child</label>
            <input id="breed-name" required maxLength={MAX_NAME_CHARS} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="breed-seed">Seed (optional)</label>
            <input
              id="breed-seed"
              inputMode="numeric"
              pattern="[0-9]*"
              value={seed}
              onChange={(e) => setSeed(e.target.value)}
              aria-describedby="breed-seed-help"
            />
            <small id="breed-seed-help">The same parents, rate and seed give the same child.</small>
          </div>
        </div>
        <div className="field">
          <label htmlFor="breed-mutation">
            Mutation rate <output htmlFor="breed-mutation">{mutation.toFixed(2)}</output>
          </label>
          <input
            id="breed-mutation"
            type="range"
            min={0}
            max={1}
            step={0.01}
            value={mutation}
            onChange={(e) => setMutation(Number(e.target.value))}
            aria-describedby="breed-mutation-help"
          />
          <small id="breed-mutation-help">0 blends the parents only; 1 lets the child stray far from both.</small>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Breeding…' : 'Breed'}
        </button>
        <ErrorText>{error}</ErrorText>
      </form>
      {child ? (
        <section className="family" aria-labelledby="child-heading" tabIndex={-1} ref={result} data-testid="breed-result">
          <h3 id="child-heading">
            Meet {child.voice.name} <code>{child.voice.id}</code>
          </h3>
          <p>Each plays the same line, so you can hear what the child took from whom.</p>
          <ul className="trio">
            {child.a ? (
              <li>
                <span className="relation">Parent A</span>
                <strong>{child.a.name}</strong>
                <PlayButton voice={child.a} language={child.voice.language} />
              </li>
            ) : null}
            <li className="child">
              <span className="relation">Child</span>
              <strong>{child.voice.name}</strong>
              <PlayButton voice={child.voice} language={child.voice.language} />
            </li>
            {child.b ? (
              <li>
                <span className="relation">Parent B</span>
                <strong>{child.b.name}</strong>
                <PlayButton voice={child.b} language={child.voice.language} />
              </li>
            ) : null}
          </ul>
          <NewVoice voice={child.voice} heading="The bred voice" />
        </section>
      ) : null}
    </section>
  );
}

export function ForgePage() {
  return (
    <Page title="Forge" intro="Make voices of your own: clone one from a recording, or breed a new one from two parents.">
      <CloneForm />
      <BreedForm />
    </Page>
  );
}
