import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { LEXICON_LIMITS, type PhonemeAlphabet } from '../../../src/schemas/lexicons.ts';
import { api, speakBlob } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { ErrorText, InlineError, StatusText, message } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import type { PlayState } from '../components/play-button.tsx';
import { VoiceSelect } from '../components/voice-select.tsx';
import { useFailure } from '../session.ts';
import { useLoadedList } from '../loaded-list.ts';
import { navigate, useLocation } from '../router.tsx';
import type { Lexicon, LexiconRule, Voice } from '../types.ts';
import { useVoices } from '../voices-store.ts';

type Kind = 'alias' | 'phoneme';

interface Draft {
  grapheme: string;
  kind: Kind;
  value: string;
  alphabet: PhonemeAlphabet;
}

const EMPTY: Draft = { grapheme: '', kind: 'alias', value: '', alphabet: 'ipa' };

function toRule(d: Draft): LexiconRule {
  const grapheme = d.grapheme.trim();
  if (d.kind === 'alias') return { grapheme, alias: d.value.trim() };
  return d.alphabet === 'ipa' ? { grapheme, phoneme: d.value.trim() } : { grapheme, phoneme: d.value.trim(), alphabet: d.alphabet };
}

function toDraft(r: LexiconRule): Draft {
  if (r.alias !== undefined) return { grapheme: r.grapheme, kind: 'alias', value: r.alias, alphabet: 'ipa' };
  return { grapheme: r.grapheme, kind: 'phoneme', value: r.phoneme ?? '', alphabet: r.alphabet ?? 'ipa' };
}

/** The engines that speak a phoneme rule's phonemes; flite says the written word (docs/api.md, Lexicons). */
const PHONEME_ENGINES: ReadonlySet<string> = new Set(['espeak', 'piper', 'kokoro']);
/** A voice that says phoneme rules: a natural English one if installed, else espeak's American English. */
function phonemeVoice(voices: readonly Voice[] | null): string {
  const english = (voices ?? []).filter((v) => PHONEME_ENGINES.has(v.engine) && v.language.toLowerCase().startsWith('en'));
  const natural = english.find((v) => v.engine !== 'espeak');
  return (natural ?? english.find((v) => v.language === 'en-US') ?? english[0])?.id ?? 'default';
}

// One "hear it" at a time on the page.
const player = document.createElement('audio');

/** Speaks a rule's grapheme with its lexicon applied, through the session's own speak path. */
function HearIt({ lexicon, rule, voiceId }: { lexicon: string; rule: LexiconRule; voiceId: string }) {
  const [state, setState] = useState<PlayState>('idle');
  const [error, setError] = useState<string | null>(null);

  async function play() {
    setError(null);
    setState('loading');
    try {
      const blob = await speakBlob({ text: rule.grapheme, voice_id: voiceId, lexicons: [lexicon], format: 'mp3' });
      if (player.src.startsWith('blob:')) URL.revokeObjectURL(player.src);
      player.src = URL.createObjectURL(blob);
      player.onended = () => setState('ended');
      setState('playing');
      await player.play();
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      setState('error');
      setError(message(err));
    }
  }

  return (
    <span className="play">
      <button
        type="button"
        className="play-button"
        data-state={state}
        aria-busy={state === 'loading'}
        disabled={state === 'loading'}
        onClick={() => void play()}
        aria-label={`Hear it: “${rule.grapheme}”`}
      >
        <span aria-hidden="true">▶</span> Hear it
      </button>
      <InlineError>{error}</InlineError>
    </span>
  );
}

function RuleForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  idPrefix,
}: {
  initial: Draft;
  submitLabel: string;
  onSubmit: (d: Draft) => Promise<void>;
  onCancel?: () => void;
  idPrefix: string;
}) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      await onSubmit(draft);
      if (!onCancel) setDraft(EMPTY);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="field-row rule-form" onSubmit={(e) => void submit(e)} aria-label={submitLabel}>
      <div className="field">
        <label htmlFor={`${idPrefix}-grapheme`}>Written</label>
        <input
          id={`${idPrefix}-grapheme`}
          required
          maxLength={LEXICON_LIMITS.graphemeChars}
          value={draft.grapheme}
          onChange={(e) => set({ grapheme: e.target.value })}
          placeholder="e.g. WHO"
        />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-kind`}>Rule</label>
        <select id={`${idPrefix}-kind`} value={draft.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>
          <option value="alias">Say instead</option>
          <option value="phoneme">Phonemes</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-value`}>{draft.kind === 'alias' ? 'Spoken as' : 'Phonemes'}</label>
        <input
          id={`${idPrefix}-value`}
          required
          maxLength={draft.kind === 'alias' ? LEXICON_LIMITS.aliasChars : LEXICON_LIMITS.phonemeChars}
          value={draft.value}
          onChange={(e) => set({ value: e.target.value })}
          placeholder={draft.kind === 'alias' ? 'e.g. World Health Organization' : 'e.g. təˈmɑːtəʊ'}
        />
      </div>
      {draft.kind === 'phoneme' ? (
        <div className="field">
          <label htmlFor={`${idPrefix}-alphabet`}>Alphabet</label>
          <select
            id={`${idPrefix}-alphabet`}
            value={draft.alphabet}
            onChange={(e) => set({ alphabet: e.target.value as Draft['alphabet'] })}
          >
            <option value="ipa">IPA</option>
            <option value="x-sampa">X-SAMPA</option>
          </select>
        </div>
      ) : null}
      <button type="submit" disabled={busy || draft.grapheme.trim() === '' || draft.value.trim() === ''}>
        {submitLabel}
      </button>
      {onCancel ? (
        <button type="button" className="quiet" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </form>
  );
}

function LexiconEditor({ name, onChanged, onDeleted }: { name: string; onChanged: () => Promise<void>; onDeleted: () => void }) {
  const fail = useFailure();
  const voices = useVoices();
  const [lexicon, setLexicon] = useState<Lexicon | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const [chosenVoice, setVoiceId] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);

  useEffect(() => {
    let live = true;
    setLexicon(null);
    setEditing(null);
    api.getLexicon(name).then(
      (l) => live && setLexicon(l),
      (err: unknown) => live && setError(fail(err)),
    );
    return () => {
      live = false;
    };
  }, [name, fail]);

  async function save(rules: LexiconRule[], done: string) {
    setError(null);
    try {
      setLexicon(await api.replaceLexicon(name, rules));
      setStatus(done);
      await onChanged();
    } catch (err) {
      setError(fail(err));
      throw err;
    }
  }

  async function makeDefault() {
    setError(null);
    try {
      setLexicon(await api.updateLexicon(name, { default: !lexicon?.default }));
      setStatus(lexicon?.default ? `“${name}” is no longer the default.` : `“${name}” is now your default lexicon.`);
      await onChanged();
    } catch (err) {
      setError(fail(err));
    }
  }

  async function remove() {
    setDeleting(true);
    try {
      await api.deleteLexicon(name);
      setConfirmDelete(false);
      onDeleted();
    } catch (err) {
      setError(fail(err));
    } finally {
      setDeleting(false);
    }
  }

  if (!lexicon) return error ? <ErrorText>{error}</ErrorText> : <p>Loading…</p>;
  const rules = lexicon.rules;
  const swallow = () => undefined;
  const hasPhonemes = rules.some((r) => r.phoneme !== undefined);
  // Until one is chosen: with phoneme rules, a voice that says them; else the default voice.
  const voiceId = chosenVoice ?? (hasPhonemes ? phonemeVoice(voices.voices) : 'default');
  // "default" is whatever the server makes it: only a named voice can be judged.
  const voice = voices.voices?.find((v) => v.id === voiceId);
  const aliasOnly = hasPhonemes && voice !== undefined && !PHONEME_ENGINES.has(voice.engine);

  return (
    <section className="card" aria-labelledby="lexicon-heading">
      <h2 id="lexicon-heading">
        {lexicon.name} {lexicon.default ? <span className="badge">default</span> : null}
      </h2>
      <div className="field-row">
        <button type="button" onClick={() => void makeDefault()}>
          {lexicon.default ? 'Stop using as default' : 'Make default'}
        </button>
        <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
          Delete lexicon
        </button>
      </div>
      <VoiceSelect
        id="lexicon-voice"
        label="Voice for “Hear it”"
        voices={voices.voices}
        value={voiceId}
        onChange={setVoiceId}
        allowDefault
      />
      {aliasOnly ? (
        <p className="hint" data-testid="alias-only">
          {voice?.name} ({voice?.engine}) takes only the “say as” (alias) rules: it says phoneme rules as they are written. To hear those,
          choose an espeak, Piper or Kokoro voice.
        </p>
      ) : null}
      <table className="rules">
        <caption className="visually-hidden">Rules of {lexicon.name}</caption>
        <thead>
          <tr>
            <th scope="col">Written</th>
            <th scope="col">Said as</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule, i) =>
            editing === i ? (
              <tr key={rule.grapheme}>
                <td colSpan={3}>
                  <RuleForm
                    idPrefix={`edit-${i}`}
                    initial={toDraft(rule)}
                    submitLabel="Save rule"
                    onCancel={() => setEditing(null)}
                    onSubmit={async (d) => {
                      await save(
                        rules.map((r, j) => (j === i ? toRule(d) : r)),
                        `Rule “${d.grapheme.trim()}” saved.`,
                      ).catch(swallow);
                      setEditing(null);
                    }}
                  />
                </td>
              </tr>
            ) : (
              <tr key={rule.grapheme}>
                <td>{rule.grapheme}</td>
                <td>
                  {rule.alias !== undefined ? (
                    rule.alias
                  ) : (
                    <code>{`/${rule.phoneme ?? ''}/ ${rule.alphabet === 'x-sampa' ? '(X-SAMPA)' : '(IPA)'}`}</code>
                  )}
                </td>
                <td className="actions">
                  <HearIt lexicon={lexicon.name} rule={rule} voiceId={voiceId} />
                  <button type="button" className="quiet" onClick={() => setEditing(i)} aria-label={`Edit “${rule.grapheme}”`}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="quiet"
                    aria-label={`Delete “${rule.grapheme}”`}
                    onClick={() =>
                      void save(
                        rules.filter((_, j) => j !== i),
                        `Rule “${rule.grapheme}” deleted.`,
                      ).catch(swallow)
                    }
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
      {rules.length === 0 ? <p>No rules yet.</p> : null}
      <h3>Add a rule</h3>
      <RuleForm
        idPrefix="add"
        initial={EMPTY}
        submitLabel="Add rule"
        onSubmit={(d) => save([...rules, toRule(d)], `Rule “${d.grapheme.trim()}” added.`).catch(swallow)}
      />
      <ErrorText>{error}</ErrorText>
      <StatusText>{status}</StatusText>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete “${lexicon.name}”?`}
        confirmLabel="Delete"
        busy={deleting}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmDelete(false)}
      >
        Requests that name it will get a 404 until you create it again.
      </ConfirmDialog>
    </section>
  );
}

const listLexicons = () => api.listLexicons();

export function LexiconsPage() {
  const fail = useFailure();
  const { list, error: listError, reload: load } = useLoadedList(listLexicons);
  // The open lexicon lives in the address (?lexicon=name): a reload, a bookmark or the back button keeps it.
  const { query } = useLocation();
  const selected = query.get('lexicon');
  const setSelected = (next: string | null) =>
    navigate(next ? `/lexicons?lexicon=${encodeURIComponent(next)}` : '/lexicons', { replace: true });
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const file = useRef<HTMLInputElement>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    setCreateError(null);
    try {
      const made = await api.createLexicon(name.trim(), []);
      setName('');
      await load();
      setSelected(made.name);
    } catch (err) {
      setCreateError(fail(err));
    }
  }

  async function importFile(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0];
    if (!chosen) return;
    setImportError(null);
    const target =
      name.trim() ||
      chosen.name
        .replace(/\.[^.]*$/, '')
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '') ||
      'imported';
    try {
      const imported = await api.importPls(target, await chosen.text());
      setStatus(`Imported ${imported.rules.length} rules into “${imported.name}”.`);
      setName('');
      await load();
      setSelected(imported.name);
    } catch (err) {
      setImportError(fail(err));
    } finally {
      if (file.current) file.current.value = '';
    }
  }

  return (
    <Page
      title="Lexicons"
      intro="Pronunciation lexicons tell every voice how to say a word: say something else instead (WHO → World Health Organization) or use given phonemes. Name them in a request (lexicons: [...]) or make one your default."
    >
      <form className="card inline-form" onSubmit={(e) => void create(e)}>
        <h2>New lexicon</h2>
        <div className="field-row">
          <div className="field">
            <label htmlFor="lexicon-name">Name</label>
            <input
              id="lexicon-name"
              maxLength={LEXICON_LIMITS.nameChars}
              pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. acronyms"
              aria-describedby="lexicon-name-help"
            />
            <small id="lexicon-name-help">
              Letters, digits, “.”, “_” and “-”. Also the name a PLS import goes into (else the file’s name).
            </small>
          </div>
          <button type="submit" disabled={name.trim() === ''}>
            Create
          </button>
          <div className="field">
            <label htmlFor="lexicon-pls">Import a PLS file</label>
            <input
              id="lexicon-pls"
              ref={file}
              type="file"
              accept=".pls,.xml,application/pls+xml,application/xml,text/xml"
              onChange={(e) => void importFile(e)}
            />
          </div>
        </div>
        <ErrorText>{createError}</ErrorText>
        <ErrorText>{importError}</ErrorText>
        <StatusText>{status}</StatusText>
      </form>

      <section aria-labelledby="lexicons-heading">
        <h2 id="lexicons-heading">Your lexicons</h2>
        <ErrorText>{listError}</ErrorText>
        {list === null ? <p>Loading…</p> : list.length === 0 ? <p>None yet.</p> : null}
        <ul className="lexicon-list">
          {(list ?? []).map((l) => (
            <li key={l.name}>
              <button
                type="button"
                className={selected === l.name ? 'selected' : 'quiet'}
                aria-pressed={selected === l.name}
                onClick={() => setSelected(l.name)}
              >
                {l.name}
              </button>{' '}
              {l.rule_count} {l.rule_count === 1 ? 'rule' : 'rules'}
              {l.default ? <span className="badge">default</span> : null}
            </li>
          ))}
        </ul>
      </section>

      {selected ? (
        <LexiconEditor
          key={selected}
          name={selected}
          onChanged={load}
          onDeleted={() => {
            setStatus(`Lexicon “${selected}” deleted.`);
            setSelected(null);
            void load();
          }}
        />
      ) : null}
    </Page>
  );
}
