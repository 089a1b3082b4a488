import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { JOB_FINAL_EVENTS } from '../../../src/schemas/jobs.ts';
import { SPEECH_FORMATS } from '../../../src/schemas/speech.ts';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { VoiceSelect } from '../components/voice-select.tsx';
import { useFailure } from '../session.ts';
import type { AudioFormat, Job } from '../types.ts';
import { useVoices } from '../voices-store.ts';

const FINISHED: ReadonlySet<string> = new Set(JOB_FINAL_EVENTS);
const percent = (x: number): string => `${Math.round(x * 100)}%`;

function duration(seconds: number | null): string {
  if (seconds === null) return '';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

/** Follows a job's events while it runs; the job as it stands is handed to `onChange`. */
function useJobEvents(job: Job, onChange: (job: Job) => void): void {
  const running = !FINISHED.has(job.status);
  useEffect(() => {
    if (!running) return;
    // Same origin: the browser sends the session cookie with the event stream.
    const source = new EventSource(`/v1/jobs/${encodeURIComponent(job.id)}/events`);
    const take = (event: MessageEvent<string>) => {
      const data = JSON.parse(event.data) as Job | { id: string; status: 'cancelled' };
      if ('chapters' in data) onChange(data);
    };
    source.onmessage = take;
    for (const name of JOB_FINAL_EVENTS) {
      source.addEventListener(name, (e) => {
        take(e as MessageEvent<string>);
        source.close();
      });
    }
    return () => source.close();
  }, [job.id, running, onChange]);
}

function JobCard({ job, onChange, onDeleted }: { job: Job; onChange: (job: Job) => void; onDeleted: (id: string) => void }) {
  const fail = useFailure();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  useJobEvents(job, onChange);
  const running = !FINISHED.has(job.status);

  async function redo(n: number) {
    setError(null);
    try {
      onChange(await api.redoChapter(job.id, n));
    } catch (err) {
      setError(fail(err));
    }
  }

  async function remove() {
    setConfirming(false);
    try {
      await api.deleteJob(job.id);
      onDeleted(job.id);
    } catch (err) {
      setError(fail(err));
    }
  }

  const ext = job.format === 'mulaw' || job.format === 'alaw' ? 'wav' : job.format;
  return (
    <li className="card book" aria-labelledby={`book-${job.id}`}>
      <h2 id={`book-${job.id}`}>{job.title}</h2>
      <p className="book-meta">
        {job.author ? `${job.author} · ` : ''}
        {job.chapters.length} {job.chapters.length === 1 ? 'chapter' : 'chapters'} · {job.characters.toLocaleString()} characters ·{' '}
        {job.format} · {job.voice_id}
        {job.duration_seconds !== null ? ` · ${duration(job.duration_seconds)}` : ''}
      </p>
      <p className="book-meta book-checks">
        Pieces checked: {job.checks.passed} passed
        {job.checks.retried > 0 ? ` (${job.checks.retried} after rendering again)` : ''}
        {job.checks.failed > 0 ? (
          <strong className="check-failed">
            {' '}
            · {job.checks.failed} failed: listen to the marked {job.checks.failed === 1 ? 'chapter' : 'chapters'}
          </strong>
        ) : null}{' '}
        · {job.pieces.rendered} rendered, {job.pieces.reused} reused
      </p>
      <div className="book-progress">
        <label htmlFor={`progress-${job.id}`}>
          <span className="book-status" data-status={job.status}>
            {job.status}
          </span>{' '}
          {running ? percent(job.progress) : ''}
        </label>
        <progress id={`progress-${job.id}`} max={1} value={job.progress} />
      </div>
      {job.error ? <ErrorText>{job.error}</ErrorText> : null}
      <ol className="chapters">
        {job.chapters.map((c) => (
          <li key={c.index} className="chapter" data-status={c.status}>
            <span className="chapter-title">
              {c.title}
              {c.checks.failed > 0 ? (
                <span className="check-failed" title="Pieces that failed their check on every try: listen, or redo the chapter">
                  {' '}
                  ⚠ {c.checks.failed} {c.checks.failed === 1 ? 'piece' : 'pieces'} failed checks
                </span>
              ) : null}
            </span>
            <progress max={1} value={c.progress} aria-label={`${c.title}: ${percent(c.progress)}`} />
            <span className="chapter-actions">
              {c.audio_url ? (
                <>
                  <button type="button" className="quiet" onClick={() => setPlaying(c.audio_url)} aria-label={`Play ${c.title}`}>
                    ▶ Play
                  </button>
                  <a className="button quiet" href={c.audio_url} download={`${String(c.index + 1).padStart(2, '0')} ${c.title}.${ext}`}>
                    Download
                  </a>
                  {job.status === 'done' ? (
                    <button type="button" className="quiet" onClick={() => void redo(c.index)} aria-label={`Render ${c.title} again`}>
                      Redo
                    </button>
                  ) : null}
                </>
              ) : (
                <span className="muted">{percent(c.progress)}</span>
              )}
            </span>
          </li>
        ))}
      </ol>
      {playing ? <audio controls autoPlay src={playing} className="book-player" aria-label="Player" /> : null}
      <div className="actions">
        {job.audio_url ? (
          <>
            <button type="button" onClick={() => setPlaying(job.audio_url)}>
              ▶ Play the book
            </button>
            <a className="button" href={job.audio_url} download={`${job.title}.${ext}`}>
              Download the book
            </a>
            <a className="button quiet" href={`${job.audio_url}?layout=chapters`} download={`${job.title}.zip`}>
              Chapters (zip)
            </a>
            {job.format === 'mp3' ? (
              <a className="button quiet" href={`/v1/jobs/${encodeURIComponent(job.id)}/epub`} download={`${job.title}.epub`}>
                Read-along EPUB
              </a>
            ) : null}
          </>
        ) : null}
        <button type="button" className="quiet danger" onClick={() => setConfirming(true)}>
          {running ? 'Cancel' : 'Delete'}
        </button>
      </div>
      <ErrorText>{error}</ErrorText>
      <ConfirmDialog
        open={confirming}
        title={running ? `Cancel “${job.title}”?` : `Delete “${job.title}”?`}
        confirmLabel={running ? 'Cancel the book' : 'Delete'}
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      >
        {running ? 'Its rendering stops and what was rendered is deleted.' : 'Its audio is deleted.'}
      </ConfirmDialog>
    </li>
  );
}

export function BooksPage() {
  const fail = useFailure();
  const voices = useVoices();
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [voiceId, setVoiceId] = useState('default');
  const [format, setFormat] = useState<AudioFormat>('mp3');
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState('');
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');

  useEffect(() => {
    api.listJobs().then(setJobs, (err: unknown) => setError(fail(err)));
  }, [fail]);

  const update = useCallback((job: Job) => setJobs((list) => (list ?? []).map((j) => (j.id === job.id ? job : j))), []);
  const removed = useCallback((id: string) => {
    setJobs((list) => (list ?? []).filter((j) => j.id !== id));
    setStatus('Deleted.');
  }, []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!file && text.trim() === '') {
      setError('Choose a file or paste some text.');
      return;
    }
    setBusy(true);
    try {
      const common = { voice_id: voiceId, format, ...(title.trim() ? { title: title.trim() } : {}) };
      const job = file ? await api.uploadJob({ ...common, file, filename: file.name }) : await api.createJob({ ...common, text });
      setJobs((list) => [job, ...(list ?? [])]);
      setStatus(`“${job.title}” is queued: ${job.chapters.length} ${job.chapters.length === 1 ? 'chapter' : 'chapters'}.`);
      setFile(null);
      setText('');
      setTitle('');
      (event.target as HTMLFormElement).reset();
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Page
      title="Books"
      intro="Turn a book or a long document into a chaptered audiobook. Chapters come from an EPUB’s table of contents, headings, or lines such as “Chapter 12”."
    >
      <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="new-book">
        <h2 id="new-book">New book</h2>
        <label htmlFor="book-file">File (.epub, .txt, .md, .html, .ssml)</label>
        <input
          id="book-file"
          type="file"
          accept=".epub,.txt,.text,.md,.markdown,.html,.htm,.xhtml,.ssml"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
        <label htmlFor="book-text">…or paste text</label>
        <textarea
          id="book-text"
          rows={6}
          value={text}
          onChange={(e) => setText(e.target.value)}
          disabled={file !== null}
          placeholder={'Chapter 1\n\nIt was a bright cold day in April…'}
        />
        <label htmlFor="book-title">Title (optional)</label>
        <input id="book-title" value={title} maxLength={500} onChange={(e) => setTitle(e.target.value)} />
        <VoiceSelect id="book-voice" label="Voice" voices={voices.voices} value={voiceId} onChange={setVoiceId} allowDefault />
        <label htmlFor="book-format">Format</label>
        <select id="book-format" value={format} onChange={(e) => setFormat(e.target.value as AudioFormat)}>
          {SPEECH_FORMATS.map((f) => (
            <option key={f} value={f}>
              {f === 'mp3' ? 'mp3 (one file with chapters)' : f}
            </option>
          ))}
        </select>
        <div className="actions">
          <button type="submit" disabled={busy} aria-busy={busy}>
            {busy ? 'Reading…' : 'Make the audiobook'}
          </button>
        </div>
        <ErrorText>{error}</ErrorText>
      </form>
      <StatusText>{status}</StatusText>
      {jobs === null ? (
        <p role="status">Loading…</p>
      ) : jobs.length === 0 ? (
        <p className="muted">No books yet.</p>
      ) : (
        <ul className="books" aria-label="Your books">
          {jobs.map((job) => (
            <JobCard key={job.id} job={job} onChange={update} onDeleted={removed} />
          ))}
        </ul>
      )}
    </Page>
  );
}
