import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { PlayButton } from '../components/play-button.tsx';
import { bytes } from '../format.ts';
import { installUnderWay } from '../installs.ts';
import { Link } from '../router.tsx';
import { useFailure, useSession } from '../session.ts';
import type { CatalogEntry, InstalledVoice, InstallJob } from '../types.ts';
import { reloadVoices, useVoices } from '../voices-store.ts';

const POLL_MS = 400;
/** Catalogue rows shown at first (Piper's catalogue has 100+ voices). */
const FIRST_ROWS = 40;
const QUALITY_ORDER = ['high', 'medium', 'low', 'x_low', 'fp32', 'fp16', 'int8'];

function primary(tag: string): string {
  return tag.toLowerCase().split('-')[0];
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

function timeLeft(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `, ${Math.max(1, Math.round(seconds))} s left`;
  return `, ${Math.round(seconds / 60)} min left`;
}

function InstallProgress({ job, label }: { job: InstallJob; label: string }) {
  const pct = job.total > 0 ? Math.floor((job.received / job.total) * 100) : 0;
  const text =
    job.status === 'waiting'
      ? 'Waiting: another server is downloading it'
      : `${bytes(job.received)} of ${bytes(job.total)}${job.bytes_per_second > 0 ? `, ${bytes(job.bytes_per_second)}/s` : ''}${timeLeft(job.seconds_left)}`;
  return (
    <div className="install-progress">
      <progress max={job.total} value={job.received} aria-label={`Installing ${label}`} aria-valuetext={`${pct}%`} />
      <small>{text}</small>
    </div>
  );
}

function CatalogRow({
  entry,
  job,
  installed,
  onInstall,
}: {
  entry: CatalogEntry;
  job: InstallJob | undefined;
  installed: InstalledVoice | undefined;
  onInstall: (name: string) => void;
}) {
  const headingId = useId();
  const { voices } = useVoices();
  const running = job !== undefined && installUnderWay(job);
  const firstVoice = installed ? voices?.find((v) => installed.voice_ids.includes(v.id)) : undefined;
  return (
    <li className="voice catalog-entry" aria-labelledby={headingId} data-name={entry.name}>
      <div className="voice-head">
        <h3 id={headingId}>{entry.name}</h3>
        <span className="badge">{entry.engine}</span>
        {entry.installed || installed ? <span className="badge">installed</span> : null}
      </div>
      <p className="meta">
        {entry.language_name} · {entry.quality} quality ·{' '}
        {entry.speakers > 1 ? `${entry.speakers} voices` : entry.gender === 'neutral' ? 'one voice' : entry.gender} · {bytes(entry.size)}
      </p>
      <p className="description">{entry.description}</p>
      {running && job ? <InstallProgress job={job} label={entry.name} /> : null}
      {job?.status === 'failed' ? <ErrorText>{`Not installed: ${job.error ?? 'the download failed'}`}</ErrorText> : null}
      <div className="actions">
        {installed ? (
          <>
            {firstVoice ? <PlayButton voice={firstVoice} /> : null}
            {firstVoice ? (
              <Link
                to={`/?voice=${encodeURIComponent(firstVoice.id)}`}
                className="button quiet"
                aria-label={`Use ${entry.name} in the playground`}
              >
                Use
              </Link>
            ) : null}
          </>
        ) : (
          <button type="button" disabled={running} onClick={() => onInstall(entry.name)} aria-label={`Install ${entry.name}`}>
            {running ? 'Installing…' : `Install (${bytes(entry.size)})`}
          </button>
        )}
      </div>
    </li>
  );
}

/**
 * The operator's page: the catalogue of natural voices by language and quality, one click to install (with a
 * live progress bar), and what is installed, with removal. Installed voices speak at once on every door.
 */
export function NaturalVoicesPage() {
  const fail = useFailure();
  const { user } = useSession();
  const [catalog, setCatalog] = useState<CatalogEntry[] | null>(null);
  const [installed, setInstalled] = useState<InstalledVoice[] | null>(null);
  const [jobs, setJobs] = useState<InstallJob[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [catalogError, setCatalogError] = useState<string | null>(null);
  const [language, setLanguage] = useState(() => primary(navigator.language || 'en'));
  const [quality, setQuality] = useState('');
  const [shown, setShown] = useState(FIRST_ROWS);
  const [status, setStatus] = useState('');
  const [removing, setRemoving] = useState<InstalledVoice | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const finished = useRef(new Set<string>());

  const loadInstalled = useCallback(async () => {
    try {
      setInstalled(await api.installedVoices());
    } catch (err) {
      setError(fail(err));
    }
  }, [fail]);

  const loadCatalog = useCallback(async () => {
    try {
      setCatalog(await api.voiceCatalog());
      setCatalogError(null);
    } catch (err) {
      setCatalogError(fail(err));
    }
  }, [fail]);

  useEffect(() => {
    if (!user.operator) return;
    void loadInstalled();
    void loadCatalog();
  }, [user.operator, loadInstalled, loadCatalog]);

  const running = jobs.some(installUnderWay);

  // While an install runs, its progress is polled; each one that ends refreshes the lists and the pickers.
  useEffect(() => {
    if (!user.operator) return;
    let stop = false;
    let timer: number | undefined;
    const poll = async () => {
      try {
        const now = await api.voiceInstalls();
        if (stop) return;
        setJobs(now);
        const ended = now.filter(
          (j) => (j.status === 'installed' || j.status === 'failed') && !finished.current.has(`${j.name}@${j.started_at}`),
        );
        for (const j of ended) finished.current.add(`${j.name}@${j.started_at}`);
        if (ended.some((j) => j.status === 'installed')) {
          await Promise.all([loadInstalled(), reloadVoices()]);
          setStatus(
            `Installed ${ended
              .filter((j) => j.status === 'installed')
              .map((j) => j.name)
              .join(', ')}: it speaks now on every door.`,
          );
        }
        if (now.some(installUnderWay)) timer = window.setTimeout(() => void poll(), POLL_MS);
      } catch (err) {
        if (!stop) setError(fail(err));
      }
    };
    void poll();
    return () => {
      stop = true;
      window.clearTimeout(timer);
    };
  }, [user.operator, running, loadInstalled, fail]);

  async function install(name: string) {
    setError(null);
    try {
      const job = await api.installVoice(name);
      setJobs((js) => [job, ...js.filter((j) => j.name !== name)]);
      setStatus(`Installing ${name}…`);
    } catch (err) {
      setError(fail(err));
    }
  }

  async function remove() {
    if (!removing) return;
    setRemoveBusy(true);
    setRemoveError(null);
    try {
      await api.uninstallVoice(removing.name);
      setStatus(`Removed ${removing.name}: its voices are gone from every door.`);
      setRemoving(null);
      await Promise.all([loadInstalled(), reloadVoices()]);
      setCatalog((c) => c?.map((e) => (e.name === removing.name ? { ...e, installed: false } : e)) ?? null);
    } catch (err) {
      setRemoveError(fail(err));
    } finally {
      setRemoveBusy(false);
    }
  }

  const languages = useMemo(() => {
    const seen = new Map<string, string>();
    for (const e of catalog ?? []) {
      for (const l of e.languages) {
        const p = primary(l);
        if (!seen.has(p)) seen.set(p, languageNames.of(p) ?? p);
      }
    }
    return [...seen.entries()].sort((a, b) => a[1].localeCompare(b[1]));
  }, [catalog]);
  const qualities = useMemo(() => QUALITY_ORDER.filter((q) => catalog?.some((e) => e.quality === q)), [catalog]);
  const matching = useMemo(
    () =>
      (catalog ?? []).filter((e) => (!language || e.languages.some((l) => primary(l) === language)) && (!quality || e.quality === quality)),
    [catalog, language, quality],
  );

  if (!user.operator) {
    return (
      <Page title="Natural voices">
        <p>Only this server’s operator (its first account, or one listed in ADMIN_EMAILS) installs natural voices.</p>
      </Page>
    );
  }

  const installedNames = new Map((installed ?? []).map((v) => [v.name, v]));
  return (
    <Page
      title="Natural voices"
      intro="Neural voices that sound like a person reading. Each is downloaded from the catalogue, checked against its size and checksum, and speaks on every door (API, OpenAI and ElevenLabs routes, WebSocket, Wyoming) as soon as it is installed."
    >
      <ErrorText>{error}</ErrorText>
      <StatusText>{status}</StatusText>

      <section aria-labelledby="installed-heading" className="card">
        <h2 id="installed-heading">Installed</h2>
        {installed === null ? (
          <p>Loading…</p>
        ) : installed.length === 0 ? (
          catalogError ? (
            <p>None yet, and the catalogue below could not be reached, so there is nothing to pick from here for now.</p>
          ) : (
            <p>
              None yet. Pick one below: en_US-lessac-medium (American English, 63 MB) is a good first voice, kokoro-v1.0-int8 (120 MB)
              brings 54.
            </p>
          )
        ) : (
          <ul className="installed-voices">
            {installed.map((v) => (
              <li key={v.name} data-name={v.name}>
                <span>
                  <strong>{v.name}</strong> · {v.engine} · {bytes(v.size)} · {v.voice_ids.length}{' '}
                  {v.voice_ids.length === 1 ? 'voice' : 'voices'}
                </span>
                <button type="button" className="danger quiet" aria-label={`Remove ${v.name}`} onClick={() => setRemoving(v)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="catalog-heading">
        <h2 id="catalog-heading">Catalogue</h2>
        <form className="filters card" onSubmit={(e) => e.preventDefault()}>
          <div className="field">
            <label htmlFor="catalog-language">Language</label>
            <select id="catalog-language" value={language} onChange={(e) => (setLanguage(e.target.value), setShown(FIRST_ROWS))}>
              <option value="">All languages</option>
              {languages.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="catalog-quality">Quality</label>
            <select id="catalog-quality" value={quality} onChange={(e) => (setQuality(e.target.value), setShown(FIRST_ROWS))}>
              <option value="">Any</option>
              {qualities.map((q) => (
                <option key={q} value={q}>
                  {q}
                </option>
              ))}
            </select>
          </div>
        </form>
        {catalogError ? (
          <div className="card catalog-unreachable" role="alert" data-testid="catalog-unreachable">
            <h3>The catalogue could not be reached</h3>
            <p>{catalogError}</p>
            <p>
              The server fetches the list of voices from the internet. Check that it can reach the catalogue (its network, a proxy), or
              point <code>VOICES_CATALOG_URL</code> at a mirror or a local copy of <code>voices.json</code>, then try again. A voice can
              also be added from a shell on the server: <code>npx voxsmith voices add en_US-lessac-medium</code>.
            </p>
            <button type="button" className="secondary" onClick={() => void loadCatalog()}>
              Try again
            </button>
          </div>
        ) : null}
        {catalog === null && !catalogError ? <p>Loading the catalogue…</p> : null}
        {catalog !== null ? (
          <>
            <StatusText className="count">{`${matching.length} ${matching.length === 1 ? 'voice' : 'voices'} to install`}</StatusText>
            <ul className="voices catalog">
              {matching.slice(0, shown).map((e) => (
                <CatalogRow
                  key={e.name}
                  entry={e}
                  job={jobs.find((j) => j.name === e.name)}
                  installed={installedNames.get(e.name)}
                  onInstall={(n) => void install(n)}
                />
              ))}
            </ul>
            {matching.length > shown ? (
              <div className="more-row">
                <button type="button" className="secondary" onClick={() => setShown(matching.length)}>
                  Show all {matching.length}
                </button>
              </div>
            ) : null}
          </>
        ) : null}
      </section>

      <ConfirmDialog
        open={removing !== null}
        title={`Remove “${removing?.name ?? ''}”?`}
        confirmLabel="Remove voice"
        busy={removeBusy}
        onConfirm={() => void remove()}
        onCancel={() => {
          setRemoving(null);
          setRemoveError(null);
        }}
      >
        <p>Its files are deleted from the server; requests that name its voices will fail. You can install it again later.</p>
        <ErrorText>{removeError}</ErrorText>
      </ConfirmDialog>
    </Page>
  );
}
