import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { ErrorText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { count } from '../format.ts';
import { useFailure } from '../session.ts';
import type { UsageReport } from '../types.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

function dayLabel(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? day : dayFormat.format(d);
}

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const PRESETS = [7, 30, 90] as const;

export function UsagePage() {
  const fail = useFailure();
  const today = utcDay(Date.now());
  const [range, setRange] = useState({ from: utcDay(Date.now() - 29 * DAY_MS), to: today });
  const [usage, setUsage] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .usage(range)
      .then((u) => {
        if (!live) return;
        setUsage(u);
        setError(null);
      })
      .catch((err: unknown) => live && setError(fail(err)));
    return () => {
      live = false;
    };
  }, [fail, range]);

  const preset = (days: number) => setRange({ from: utcDay(Date.now() - (days - 1) * DAY_MS), to: today });

  const days = usage?.days ?? [];
  const peak = Math.max(1, ...days.map((d) => d.characters));
  const total = days.reduce((sum, d) => sum + d.characters, 0);
  const requests = days.reduce((sum, d) => sum + d.requests, 0);

  return (
    <Page
      title="Usage"
      intro="Characters synthesized for you, by day (UTC) and by API key. The dashboard’s own requests count under “Dashboard”."
    >
      <form className="card range" aria-label="Days shown" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="usage-from">From</label>
          <input
            id="usage-from"
            type="date"
            value={range.from}
            max={range.to}
            required
            onChange={(e) => e.target.value && setRange({ ...range, from: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="usage-to">To</label>
          <input
            id="usage-to"
            type="date"
            value={range.to}
            min={range.from}
            max={today}
            required
            onChange={(e) => e.target.value && setRange({ ...range, to: e.target.value })}
          />
        </div>
        <div className="actions">
          {PRESETS.map((days) => (
            <button key={days} type="button" className="quiet" onClick={() => preset(days)}>
              Last {days} days
            </button>
          ))}
        </div>
        <a className="button secondary" href={api.usageCsvUrl(range)} download data-testid="usage-csv">
          Download CSV
        </a>
      </form>
      <ErrorText>{error}</ErrorText>
      <section className="card" aria-labelledby="total-heading">
        <h2 id="total-heading">Total</h2>
        <p data-testid="usage-total">
          {usage
            ? `${count(total)} characters in ${count(requests)} ${requests === 1 ? 'request' : 'requests'}, ${dayLabel(usage.since)} to ${dayLabel(usage.until)}.`
            : 'Loading…'}
        </p>
      </section>

      <section aria-labelledby="days-heading">
        <h2 id="days-heading">Per day</h2>
        {usage === null ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : days.length === 0 ? (
          <p>Nothing synthesized in these days. Try the playground.</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Scrollable table">
            <table className="usage">
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Characters</th>
                  <th scope="col">Requests</th>
                </tr>
              </thead>
              <tbody>
                {days.map((d) => (
                  <tr key={d.day}>
                    <th scope="row">
                      <time dateTime={d.day}>{dayLabel(d.day)}</time>
                    </th>
                    <td>
                      <span className="bar-cell">
                        <span className="bar" aria-hidden="true" style={{ inlineSize: `${(100 * d.characters) / peak}%` }} />
                        <span className="num">{count(d.characters)}</span>
                      </span>
                    </td>
                    <td className="num">{count(d.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="keys-usage-heading">
        <h2 id="keys-usage-heading">Per key</h2>
        {usage && usage.keys.length > 0 ? (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Scrollable table">
            <table className="usage">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Characters</th>
                  <th scope="col">Requests</th>
                </tr>
              </thead>
              <tbody>
                {usage.keys.map((k) => (
                  <tr key={k.key_id ?? 'session'} className={k.revoked ? 'revoked' : undefined}>
                    <th scope="row">{k.key_id === null ? 'Dashboard (signed-in session)' : k.name}</th>
                    <td>{k.key_id === null ? 'Session' : k.revoked ? <span className="badge">Revoked</span> : 'Active'}</td>
                    <td className="num">{count(k.characters)}</td>
                    <td className="num">{count(k.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : usage ? (
          <p>No key was used in these days.</p>
        ) : null}
      </section>
    </Page>
  );
}
