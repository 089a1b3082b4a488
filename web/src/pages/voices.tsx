import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { MAX_SEARCH_QUERY_CHARS } from '../../../src/schemas/field-limits.ts';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { dropPreview, PlayButton } from '../components/play-button.tsx';
import { languageOptions, matchesLanguage } from '../languages.ts';
import { Link } from '../router.tsx';
import { count } from '../format.ts';
import { useFailure } from '../session.ts';
import type { Gender, Voice } from '../types.ts';
import { isNatural, isOwn, useVoices } from '../voices-store.ts';
import { NaturalVoicesHint } from '../components/natural-hint.tsx';

const SEARCH_DELAY_MS = 200;
/** Cards shown at first and per "Show more": a page stays short and quick with a thousand voices. */
const PAGE_SIZE = 48;

/** The sentences of a description. */
function sentences(text: string): string[] {
  return text.split(/(?<=\.)\s+/).filter(Boolean);
}

/**
 * Sentences most voices share (an engine's "formant synthesis: fast and intelligible…") say nothing about one
 * voice: the cards leave them out (the card names its engine).
 */
function commonSentences(voices: Voice[]): Set<string> {
  const seen = new Map<string, number>();
  for (const v of voices) for (const s of new Set(sentences(v.description))) seen.set(s, (seen.get(s) ?? 0) + 1);
  const threshold = Math.max(10, voices.length / 4);
  return new Set([...seen.entries()].filter(([, n]) => n >= threshold).map(([s]) => s));
}

function VoiceCard({ voice, onDelete, common }: { voice: Voice; onDelete: (v: Voice) => void; common: Set<string> }) {
  const headingId = useId();
  const own = isOwn(voice);
  return (
    <li className={own ? 'voice own' : 'voice'} aria-labelledby={headingId} data-voice-id={voice.id}>
      <div className="voice-head">
        <h3 id={headingId}>{voice.name}</h3>
        {own ? <span className="badge">{voice.source === 'breed' ? 'Yours · bred' : 'Yours · cloned'}</span> : null}
        {isNatural(voice) ? <span className="badge">neural</span> : null}
      </div>
      <p className="meta">
        {voice.language_name} <span className="tag">{voice.language}</span> · {voice.gender} · {voice.engine}
      </p>
      <p className="description">
        {sentences(voice.description)
          .filter((s) => !common.has(s))
          .join(' ') || voice.description}
      </p>
      <p className="ids">
        <code>{voice.id}</code>
      </p>
      <div className="actions">
        <PlayButton voice={voice} />
        <Link to={`/?voice=${encodeURIComponent(voice.id)}`} className="button quiet" aria-label={`Use ${voice.name} in the playground`}>
          Use
        </Link>
        {own ? (
          <>
            <Link to={`/voices/${encodeURIComponent(voice.id)}`} className="button quiet" aria-label={`Family tree of ${voice.name}`}>
              Family tree
            </Link>
            <button type="button" className="danger quiet" aria-label={`Delete ${voice.name}`} onClick={() => onDelete(voice)}>
              Delete
            </button>
          </>
        ) : null}
      </div>
    </li>
  );
}

export function VoicesPage() {
  const fail = useFailure();
  const all = useVoices();
  const [language, setLanguage] = useState('');
  const [gender, setGender] = useState<Gender | ''>('');
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<{ voices: Voice[]; query: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Voice | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [generation, setGeneration] = useState(0);
  const countRef = useRef<HTMLDivElement>(null);

  const [visible, setVisible] = useState(PAGE_SIZE);
  const languages = useMemo(() => languageOptions(all.voices ?? []), [all.voices]);
  const common = useMemo(() => commonSentences(all.voices ?? []), [all.voices]);

  useEffect(() => {
    const abort = new AbortController();
    const text = query.trim();
    const run = async () => {
      try {
        let list: Voice[];
        if (text === '') {
          list = await api.listVoices({ language: language || undefined, gender: gender || undefined });
        } else {
          list = (await api.searchVoices(text, { limit: 200 }, { signal: abort.signal })).filter(
            (v) => (!language || matchesLanguage(v.language, language)) && (!gender || v.gender === gender),
          );
        }
        if (abort.signal.aborted) return;
        // The service's order: natural voices and the browser's languages first; search keeps its ranking.
        setFound({ voices: list, query: text });
        setVisible(PAGE_SIZE);
        setError(null);
      } catch (err) {
        if (abort.signal.aborted) return;
        setError(fail(err));
      }
    };
    // Typing fires a search after a short pause; each keystroke cancels the one before.
    const timer = window.setTimeout(() => void run(), text === '' ? 0 : SEARCH_DELAY_MS);
    return () => {
      window.clearTimeout(timer);
      abort.abort();
    };
  }, [query, language, gender, generation, fail]);

  async function remove() {
    if (!deleting) return;
    setDeleteBusy(true);
    setDeleteError(null);
    try {
      await api.deleteVoice(deleting.id);
      dropPreview(deleting.id);
      setStatus(`Voice “${deleting.name}” deleted.`);
      setDeleting(null);
      await all.reload();
      setGeneration((g) => g + 1);
      countRef.current?.focus();
    } catch (err) {
      setDeleteError(fail(err));
    } finally {
      setDeleteBusy(false);
    }
  }

  const results = found?.voices ?? null;
  const own = results?.filter(isOwn) ?? [];
  const builtin = results?.filter((v) => !isOwn(v)) ?? [];

  return (
    <Page title="Voices" intro="Every voice speaks a short preview in its own language. Your cloned and bred voices are marked “Yours”.">
      <NaturalVoicesHint />
      <form className="filters card" role="search" onSubmit={(e) => e.preventDefault()}>
        <div className="field grow">
          <label htmlFor="voice-search">Search</label>
          <input
            id="voice-search"
            type="search"
            placeholder="e.g. british female, german, deep"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            maxLength={MAX_SEARCH_QUERY_CHARS}
            autoComplete="off"
          />
        </div>
        <div className="field">
          <label htmlFor="voice-language">Language</label>
          <select id="voice-language" value={language} onChange={(e) => setLanguage(e.target.value)}>
            <option value="">All languages</option>
            {languages.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="voice-gender">Gender</label>
          <select id="voice-gender" value={gender} onChange={(e) => setGender(e.target.value as Gender | '')}>
            <option value="">Any</option>
            <option value="female">Female</option>
            <option value="male">Male</option>
            <option value="neutral">Neutral</option>
          </select>
        </div>
      </form>

      <div tabIndex={-1} ref={countRef} className="focus-target">
        <StatusText className="count">
          {results === null
            ? 'Loading voices…'
            : `${results.length} ${results.length === 1 ? 'voice' : 'voices'}${found?.query ? ` matching “${found.query}”` : ''}`}
        </StatusText>
        <StatusText>{status}</StatusText>
      </div>
      <ErrorText>{error}</ErrorText>

      {own.length > 0 ? (
        <section aria-labelledby="own-heading">
          <h2 id="own-heading">Your voices</h2>
          <ul className="voices">
            {own.map((v) => (
              <VoiceCard key={v.id} voice={v} onDelete={setDeleting} common={common} />
            ))}
          </ul>
        </section>
      ) : null}
      {builtin.length > 0 ? (
        <section aria-labelledby="builtin-heading">
          <h2 id="builtin-heading">{own.length > 0 ? 'Built-in voices' : 'Voices'}</h2>
          <ul className="voices" id="voice-results">
            {builtin.slice(0, visible).map((v) => (
              <VoiceCard key={v.id} voice={v} onDelete={setDeleting} common={common} />
            ))}
          </ul>
          {builtin.length > visible ? (
            <div className="more-row">
              <span>
                Showing {count(visible)} of {count(builtin.length)}
              </span>
              <button type="button" className="secondary" onClick={() => setVisible(visible + PAGE_SIZE)}>
                Show {count(Math.min(PAGE_SIZE, builtin.length - visible))} more voices
              </button>
              <button type="button" className="quiet" onClick={() => setVisible(builtin.length)}>
                Show all
              </button>
            </div>
          ) : null}
        </section>
      ) : results !== null && own.length === 0 ? (
        <p>No voice matches. Try fewer words or another language.</p>
      ) : null}

      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete voice"
        busy={deleteBusy}
        onConfirm={() => void remove()}
        onCancel={() => {
          setDeleting(null);
          setDeleteError(null);
        }}
      >
        <p>The voice is removed for good; requests that name it will fail.</p>
        <ErrorText>{deleteError}</ErrorText>
      </ConfirmDialog>
    </Page>
  );
}
