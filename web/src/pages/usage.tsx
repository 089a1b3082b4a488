import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { ErrorText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { count } from '../format.ts';
import { useFailure, useSession } from '../session.ts';
import type { UsageReport } from '../types.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

function dayLabel(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? day : dayFormat.format(d);
}

export function UsagePage() {
  const fail = useFailure();
  const { user } = useSession();
  const [usage, setUsage] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .usage()
      .then((u) => live && setUsage(u))
      .catch((err: unknown) => live && setError(fail(err)));
    return () => {
      live = false;
    };
  }, [fail]);

  const days = usage?.days ?? [];
  const peak = Math.max(1, ...days.map((d) => d.characters));
  const total = days.reduce((sum, d) => sum + d.characters, 0);
  const requests = days.reduce((sum, d) => sum + d.requests, 0);

  return (
    <Page title="Usage" intro="Characters synthesized for you, by day (UTC) and by API key. The dashboard’s own requests count under “Dashboard”.">
      <ErrorText>{error}</ErrorText>
      <section className="card plan" aria-labelledby="plan-heading">
        <h2 id="plan-heading">Plan</h2>
        <p>
          <span className="badge big" data-testid="plan">
            {usage?.plan ?? user.plan}
          </span>{' '}
          {usage ? (
            <span>
              {count(total)} characters in {count(requests)} {requests === 1 ? 'request' : 'requests'} over the days shown.
            </span>
          ) : null}
        </p>
      </section>

      <section aria-labelledby="days-heading">
        <h2 id="days-heading">Per day</h2>
        {usage === null ? (
          error ? null : <p>Loading…</p>
        ) : days.length === 0 ? (
          <p>Nothing synthesized yet. Try the playground.</p>
        ) : (
          <div className="table-wrap">
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
          <div className="table-wrap">
            <table className="usage">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Characters</th>
                  <th scope="col">Requests</th>
                </tr>
              </thead>
              <tbody>
                {usage.keys.map((k) => (
                  <tr key={k.key_id ?? 'session'}>
                    <th scope="row">{k.key_id === null ? 'Dashboard (signed-in session)' : (k.name ?? `${k.key_id} (revoked)`)}</th>
                    <td className="num">{count(k.characters)}</td>
                    <td className="num">{count(k.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : usage ? (
          <p>No key has been used yet.</p>
        ) : null}
      </section>
    </Page>
  );
}
