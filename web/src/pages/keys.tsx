import { useEffect, useRef, useState, type FormEvent } from 'react';
import { KEY_SCOPES } from '../../../client/index.ts';
import { MAX_KEY_NAME_CHARS } from '../../../src/schemas/field-limits.ts';
import { api } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorText, StatusText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { keySnippets, Snippets } from '../components/snippets.tsx';
import { when } from '../format.ts';
import { useFailure } from '../session.ts';
import { useLoadedList } from '../loaded-list.ts';
import type { ApiKey, CreatedApiKey, KeyScope } from '../types.ts';

/** What each scope lets a key do, in the words of the form. */
const SCOPE_LABELS: Readonly<Record<KeyScope, string>> = {
  speech: 'Speech: synthesis on every endpoint (HTTP, OpenAI, ElevenLabs, WebSocket, Home Assistant)',
  voices: 'Voices: clone, breed and delete voices; edit lexicons',
  keys: 'Keys: create, list and revoke keys',
  usage: 'Usage: read the usage report',
};

/** The form's choices: everything, the one-click "Speech only", or scopes picked one by one. */
type Access = 'all' | 'speech' | 'custom';

function scopesFor(access: Access, custom: ReadonlySet<KeyScope>): KeyScope[] {
  if (access === 'all') return [...KEY_SCOPES];
  if (access === 'speech') return ['speech'];
  return KEY_SCOPES.filter((s) => custom.has(s));
}

/** Who made a key: the dashboard, or the key that minted it (revoking that key revokes this one). */
function mintedBy(k: ApiKey, keys: readonly ApiKey[]): string {
  if (k.parent_key_id === null) return 'Dashboard';
  return keys.find((p) => p.id === k.parent_key_id)?.name ?? 'A revoked key';
}

/** How many live keys a key minted, directly or down the line: they are revoked with it. */
function descendants(k: ApiKey, keys: readonly ApiKey[]): number {
  const line = new Set([k.id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of keys) {
      if (c.parent_key_id !== null && line.has(c.parent_key_id) && !line.has(c.id)) {
        line.add(c.id);
        grew = true;
      }
    }
  }
  return line.size - 1;
}

/** A key's scopes as the list shows them. */
function scopeSummary(scopes: readonly KeyScope[]): string {
  if (scopes.length === KEY_SCOPES.length) return 'Full access';
  if (scopes.length === 1 && scopes[0] === 'speech') return 'Speech only';
  return scopes.join(', ');
}

function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, setCopied] = useState<string>('');
  const field = useRef<HTMLInputElement>(null);
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    panel.current?.focus();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard permission (plain http on another host, say): select it for Ctrl+C instead.
      field.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  return (
    <section className="card new-key" aria-labelledby="new-key-heading" tabIndex={-1} ref={panel}>
      <h2 id="new-key-heading">Your new key “{created.name}”</h2>
      <p className="warning">
        <strong>Copy it now: it will not be shown again.</strong> Only a masked form is kept on the list. Store it like a password and never
        put it in a web page or a public repository.
      </p>
      <div className="copy-row">
        <label htmlFor="new-key-value" className="visually-hidden">
          New API key
        </label>
        <input id="new-key-value" ref={field} readOnly value={created.key} spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy key
        </button>
      </div>
      <StatusText>{copied}</StatusText>
      <p data-testid="new-key-scopes">
        It may: <strong>{scopeSummary(created.scopes)}</strong>
        {created.scopes.length < KEY_SCOPES.length ? '; anything else it asks for is refused (403 insufficient_scope).' : '.'}
      </p>
      <h3>Try it</h3>
      <Snippets label="Examples with your new key" snippets={keySnippets(created.key, window.location.origin)} />
      <p className="hint">
        Every endpoint, its fields and errors: the <a href="/docs">API reference</a>.
      </p>
      <button type="button" className="quiet" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

const listKeys = () => api.listKeys();

export function KeysPage() {
  const fail = useFailure();
  const { list: keys, error: listError, reload: load } = useLoadedList(listKeys);
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access>('all');
  const [custom, setCustom] = useState<ReadonlySet<KeyScope>>(new Set(['speech']));
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  // The revoked row (and its button) disappears; focus goes to the list's heading instead of the page top.
  const listHeading = useRef<HTMLHeadingElement>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    setCreateError(null);
    setCreating(true);
    try {
      const key = await api.createKey({ name: name.trim(), scopes: scopesFor(access, custom) });
      setCreated(key);
      setName('');
      await load();
    } catch (err) {
      setCreateError(fail(err));
    } finally {
      setCreating(false);
    }
  }

  async function revoke() {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(null);
    try {
      await api.revokeKey(revoking.id);
      setStatus(`Key “${revoking.name}” revoked.`);
      if (created?.id === revoking.id) setCreated(null);
      setRevoking(null);
      await load();
      listHeading.current?.focus();
    } catch (err) {
      setRevokeError(fail(err));
    } finally {
      setRevokeBusy(false);
    }
  }

  return (
    <Page
      title="API keys"
      intro="Keys let programs use the API with an Authorization: Bearer header. This dashboard itself never holds one."
    >
      <form className="card inline-form" onSubmit={(e) => void create(e)}>
        <h2>Create a key</h2>
        <div className="field-row">
          <div className="field">
            <label htmlFor="key-name">Name</label>
            <input
              id="key-name"
              required
              maxLength={MAX_KEY_NAME_CHARS}
              placeholder="e.g. laptop, build server"
              value={name}
              onChange={(e) => setName(e.target.value)}
              aria-describedby="key-name-help"
            />
            <small id="key-name-help">A label to recognise it by; the key itself is generated.</small>
          </div>
          <button type="submit" disabled={creating || name.trim() === '' || scopesFor(access, custom).length === 0}>
            {creating ? 'Creating…' : 'Create key'}
          </button>
        </div>
        <fieldset className="segmented" aria-describedby="key-access-help">
          <legend>What it may do</legend>
          <label>
            <input type="radio" name="key-access" value="all" checked={access === 'all'} onChange={() => setAccess('all')} /> Full access
          </label>
          <label>
            <input type="radio" name="key-access" value="speech" checked={access === 'speech'} onChange={() => setAccess('speech')} />{' '}
            Speech only
          </label>
          <label>
            <input type="radio" name="key-access" value="custom" checked={access === 'custom'} onChange={() => setAccess('custom')} />{' '}
            Choose…
          </label>
          <small id="key-access-help">
            {access === 'speech'
              ? 'Speaks on every endpoint and can do nothing else: the right key for a device, a bot or a server that only talks.'
              : access === 'all'
                ? 'Speech, voices and lexicons, keys and usage: everything you can do here.'
                : 'Tick what the key may do.'}
          </small>
        </fieldset>
        {access === 'custom' ? (
          <fieldset className="scope-choices">
            <legend className="visually-hidden">Scopes</legend>
            {KEY_SCOPES.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  name="key-scope"
                  value={scope}
                  checked={custom.has(scope)}
                  onChange={(e) => {
                    const next = new Set(custom);
                    if (e.target.checked) next.add(scope);
                    else next.delete(scope);
                    setCustom(next);
                  }}
                />{' '}
                {SCOPE_LABELS[scope]}
              </label>
            ))}
          </fieldset>
        ) : null}
        <ErrorText>{createError}</ErrorText>
      </form>

      {created ? <NewKey key={created.id} created={created} onDone={() => setCreated(null)} /> : null}

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading" tabIndex={-1} ref={listHeading}>
          Your keys
        </h2>
        <StatusText>{status}</StatusText>
        <ErrorText>{listError}</ErrorText>
        {keys === null ? (
          listError ? null : (
            <p>Loading…</p>
          )
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="keys">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">May do</th>
                  <th scope="col">Created</th>
                  <th scope="col">Made by</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <th scope="row" data-label="Name">
                      {k.name}
                    </th>
                    <td data-label="Key">
                      <code>{k.masked_key}</code>
                    </td>
                    <td data-label="May do" title={k.scopes.join(', ')}>
                      {scopeSummary(k.scopes)}
                    </td>
                    <td data-label="Created">{when(k.created_at)}</td>
                    <td data-label="Made by">{mintedBy(k, keys)}</td>
                    <td data-label="Last used">{when(k.last_used)}</td>
                    <td>
                      <button type="button" className="danger" aria-label={`Revoke key ${k.name}`} onClick={() => setRevoking(k)}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        busy={revokeBusy}
        onConfirm={() => void revoke()}
        onCancel={() => {
          setRevoking(null);
          setRevokeError(null);
        }}
      >
        <p>
          Programs using <code>{revoking?.masked_key}</code> stop working at once. This cannot be undone.
        </p>
        {revoking && keys && descendants(revoking, keys) > 0 ? (
          <p>The {descendants(revoking, keys)} key(s) it made (and those they made) are revoked with it.</p>
        ) : null}
        <ErrorText>{revokeError}</ErrorText>
      </ConfirmDialog>
    </Page>
  );
}
