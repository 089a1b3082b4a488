import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { bytes } from '../format.ts';
import { installUnderWay } from '../installs.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import type { InstallJob } from '../types.ts';
import { isNatural, reloadVoices, useVoices } from '../voices-store.ts';

const POLL_MS = 1000;

/**
 * The operator's installs still under way, polled while some are (VOICES_INSTALL starts them at boot, so the
 * first page a new operator sees can be loaded mid-download). When one lands, the voice lists are read again,
 * which is what makes this hint go away.
 */
function useActiveInstalls(enabled: boolean): InstallJob[] {
  const [jobs, setJobs] = useState<InstallJob[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let stop = false;
    let timer: number | undefined;
    let seenActive = false;
    const poll = async () => {
      try {
        const now = (await api.voiceInstalls()).filter(installUnderWay);
        if (stop) return;
        setJobs(now);
        if (now.length > 0) {
          seenActive = true;
          timer = window.setTimeout(() => void poll(), POLL_MS);
        } else if (seenActive) {
          await reloadVoices();
        }
      } catch {
        // The hint is a courtesy: with the installs unreadable it falls back to saying how to add a voice.
      }
    };
    void poll();
    return () => {
      stop = true;
      window.clearTimeout(timer);
    };
  }, [enabled]);
  return jobs;
}

/**
 * While the server has no natural (neural) voice, says how to get one: its operator gets the button to the page
 * that installs them (or, while one is downloading, how far it is), everyone else a sentence (only the operator
 * can install).
 */
export function NaturalVoicesHint() {
  const { user } = useSession();
  const { voices } = useVoices();
  const none = voices !== null && !voices.some(isNatural);
  const installing = useActiveInstalls(none && user.operator === true);
  if (!none) return null;
  if (user.operator && installing.length > 0) {
    return (
      <aside className="card natural-hint" aria-labelledby="natural-hint-title" data-testid="natural-hint" data-state="installing">
        <h2 id="natural-hint-title">Installing a natural voice</h2>
        <ul>
          {installing.map((job) => (
            <li key={job.name}>
              {job.name}:{' '}
              {job.status === 'waiting'
                ? 'waiting while another server downloads it'
                : job.total > 0
                  ? `${Math.floor((job.received / job.total) * 100)} % of ${bytes(job.total)}`
                  : 'starting'}
            </li>
          ))}
        </ul>
        <p>
          It speaks on every door as soon as it has arrived, with no restart; until then the built-in voices answer.{' '}
          <Link to="/natural-voices">Follow it on the Natural voices page</Link>.
        </p>
      </aside>
    );
  }
  return (
    <aside className="card natural-hint" aria-labelledby="natural-hint-title" data-testid="natural-hint">
      <h2 id="natural-hint-title">No natural voice yet</h2>
      {user.operator ? (
        <>
          <p>
            The voices here are the built-in ones, quick but synthetic. Natural (neural) voices sound like a person reading: install one in
            a click, and it speaks everywhere at once, with no restart.
          </p>
          <Link to="/natural-voices" className="button">
            Add a natural voice
          </Link>
        </>
      ) : (
        <p>
          This server has only its built-in voices, quick but synthetic. Natural (neural) voices sound like a person reading; the server’s
          operator can add them from the dashboard’s Natural voices page, or with <code>npx voxsmith voices add en_US-lessac-medium</code>.
        </p>
      )}
    </aside>
  );
}
