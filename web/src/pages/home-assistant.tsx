import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { count, when } from '../format.ts';
import { useFailure } from '../session.ts';
import type { ApiKey, WyomingStatus } from '../types.ts';

/** The name a new key for Home Assistant gets. */
const NEW_KEY_NAME = 'Home Assistant';
const NEW_KEY = '__new__';

function outcomeLabel(outcome: string): string {
  if (outcome === 'spoken') return 'Spoken';
  if (outcome === 'wyoming_not_connected') return 'Refused: no key connected';
  return `Error: ${outcome.replaceAll('_', ' ')}`;
}

/** Where to enter what in Home Assistant, and why it may not work yet. */
function Setup({ status }: { status: WyomingStatus }) {
  if (!status.enabled) {
    return (
      <p className="warning">
        The Wyoming server is off on this server (<code>WYOMING_PORT=off</code>). Start Voxsmith without that setting (or with a port, e.g.{' '}
        <code>WYOMING_PORT=10200</code>) to use it.
      </p>
    );
  }
  const host = status.hosts[0] ?? '127.0.0.1';
  return (
    <>
      {status.problem ? (
        <p className="warning" role="status">
          This server is not listening for Home Assistant: {status.problem}. Another Voxsmith (or another program) may hold the port; set{' '}
          <code>WYOMING_PORT</code> to a free one and restart, or connect Home Assistant to the one that has it.
        </p>
      ) : null}
      <ol className="steps">
        <li>
          In Home Assistant open <strong>Settings → Devices &amp; services → Add integration</strong> and choose{' '}
          <strong>Wyoming Protocol</strong>.
        </li>
        <li>
          Enter these:
          <dl className="stats connect-details">
            <div>
              <dt>Host</dt>
              <dd>
                <code data-testid="wyoming-host">{host}</code>
              </dd>
            </div>
            <div>
              <dt>Port</dt>
              <dd>
                <code data-testid="wyoming-port">{status.port ?? '—'}</code>
              </dd>
            </div>
          </dl>
          {status.local_only ? (
            <p className="hint">
              Only a Home Assistant on this machine can reach it (<code>WYOMING_HOST</code> is {status.bind_host}). For one on another
              machine or in a container, start Voxsmith with <code>WYOMING_HOST=0.0.0.0</code> and enter this machine’s address.
            </p>
          ) : status.hosts.length > 1 ? (
            <p className="hint">
              Any of this machine’s addresses works:{' '}
              {status.hosts.map((h, i) => (
                <code key={h}>{i > 0 ? `, ${h}` : h}</code>
              ))}
              .
            </p>
          ) : null}
        </li>
        <li>
          Pick Voxsmith as the text-to-speech engine of your voice assistant (<strong>Settings → Voice assistants</strong>) and one of its
          voices.
        </li>
      </ol>
      <p className="hint">
        The Wyoming protocol has no passwords: anyone who can reach the port speaks on the connected key. Keep it on a trusted network.
      </p>
    </>
  );
}

export function HomeAssistantPage() {
  const fail = useFailure();
  const [status, setStatus] = useState<WyomingStatus | null>(null);
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [choice, setChoice] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');

  const load = useCallback(async () => {
    try {
      const [s, k] = await Promise.all([api.wyoming(), api.listKeys()]);
      setStatus(s);
      setKeys(k);
      setChoice((c) => c || (s.connection?.yours ? s.connection.key_id : (k[0]?.id ?? NEW_KEY)));
      setError(null);
    } catch (err) {
      setError(fail(err));
    }
  }, [fail]);

  useEffect(() => {
    void load();
  }, [load]);

  async function connect(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setNotice('');
    try {
      // A new key is made for Home Assistant alone: its secret is never needed, since Wyoming bills it by id.
      const keyId = choice === NEW_KEY ? (await api.createKey(NEW_KEY_NAME)).id : choice;
      const next = await api.connectWyoming(keyId);
      setStatus(next);
      setKeys(await api.listKeys());
      setChoice(keyId);
      setNotice(`Connected: Home Assistant’s requests are now billed to “${next.connection?.key_name ?? ''}”.`);
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  async function disconnect() {
    setBusy(true);
    setError(null);
    setNotice('');
    try {
      setStatus(await api.disconnectWyoming());
      setNotice('Disconnected: Home Assistant can list the voices, but speaking is refused until a key is connected.');
    } catch (err) {
      setError(fail(err));
    } finally {
      setBusy(false);
    }
  }

  const connection = status?.connection ?? null;
  const fixed = connection?.source === 'environment';
  const taken = connection !== null && !connection.yours;

  return (
    <Page
      title="Home Assistant"
      intro="Use Voxsmith as the voice of Home Assistant’s assistant, over the Wyoming protocol. No restart needed."
    >
      <ErrorText>{error}</ErrorText>
      {status === null ? (
        error ? null : (
          <p>Loading…</p>
        )
      ) : (
        <>
          <section className="card" aria-labelledby="ha-key-heading">
            <h2 id="ha-key-heading">1. The key it bills</h2>
            <p data-testid="wyoming-connection">
              {connection === null
                ? 'Not connected: Home Assistant can add the integration and list the voices, but speaking is refused until you choose a key.'
                : fixed
                  ? `Connected to “${connection.key_name}” by WYOMING_API_KEY in the server’s settings; change it there.`
                  : taken
                    ? 'Connected to a key of another account. Only its owner can change or disconnect it.'
                    : `Connected to “${connection.key_name}” (${connection.masked_key})${connection.connected_at ? ` since ${when(connection.connected_at)}` : ''}.`}
            </p>
            {!fixed && !taken ? (
              <form className="inline-form" onSubmit={(e) => void connect(e)}>
                <div className="field-row">
                  <div className="field">
                    <label htmlFor="ha-key">API key</label>
                    <select id="ha-key" value={choice} onChange={(e) => setChoice(e.target.value)} aria-describedby="ha-key-help">
                      {(keys ?? []).map((k) => (
                        <option key={k.id} value={k.id}>
                          {k.name} ({k.masked_key})
                        </option>
                      ))}
                      <option value={NEW_KEY}>A new key named “{NEW_KEY_NAME}”</option>
                    </select>
                    <small id="ha-key-help">Its usage and limits apply to everything Home Assistant says.</small>
                  </div>
                  <button type="submit" disabled={busy || choice === '' || (connection?.key_id === choice && choice !== NEW_KEY)}>
                    {busy ? 'Connecting…' : connection ? 'Switch key' : 'Connect'}
                  </button>
                </div>
              </form>
            ) : null}
            {connection && connection.yours && !fixed ? (
              <button type="button" className="quiet" disabled={busy} onClick={() => void disconnect()}>
                Disconnect
              </button>
            ) : null}
            <StatusText>{notice}</StatusText>
          </section>

          <section className="card" aria-labelledby="ha-setup-heading">
            <h2 id="ha-setup-heading">2. In Home Assistant</h2>
            <Setup status={status} />
          </section>

          <section aria-labelledby="ha-requests-heading">
            <h2 id="ha-requests-heading">Last requests</h2>
            <button type="button" className="quiet" onClick={() => void load()}>
              Refresh
            </button>
            {status.requests.length === 0 ? (
              <p>None yet. Once Home Assistant speaks through Voxsmith, its requests show here.</p>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Last requests">
                <table className="requests">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Voice</th>
                      <th scope="col">Characters</th>
                      <th scope="col">Result</th>
                    </tr>
                  </thead>
                  <tbody>
                    {status.requests.map((r) => (
                      <tr key={`${r.at}-${r.client}-${r.characters}`}>
                        <th scope="row" title={`from ${r.client}`}>
                          <time dateTime={r.at}>{when(r.at)}</time>
                        </th>
                        <td>{r.voice_id ?? 'default'}</td>
                        <td className="num">{count(r.characters)}</td>
                        <td>
                          {outcomeLabel(r.outcome)}
                          {r.outcome === 'spoken' ? ` (${r.audio_seconds.toFixed(1)} s)` : ''}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </Page>
  );
}
