import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Voice } from '../types.ts';
import { groupVoices, isNatural, matchesQuery, useVoices, voiceLabel } from '../voices-store.ts';

interface Props {
  id: string;
  label: string;
  voices: Voice[] | null;
  value: string;
  onChange: (id: string) => void;
  /** Offer "default" first (the service's most natural English voice). */
  allowDefault?: boolean;
  required?: boolean;
  describedBy?: string;
}

/** Rows rendered at first; scrolling or arrowing towards the end renders more, so 1 000+ voices stay quick. */
const PAGE = 80;

/** "Default voice (Heart, American English, natural)": what `default` speaks on this server now. */
function defaultLabel(voice: Voice | null): string {
  if (!voice) return 'Default voice';
  const region = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(voice.language) ?? voice.language_name;
  return `Default voice (${voice.name}, ${region}${isNatural(voice) ? ', natural' : ''})`;
}

interface Row {
  id: string;
  label: string;
  detail: string;
}

/**
 * A searchable voice picker (the ARIA combobox pattern with a grouped listbox): type to filter by name, language,
 * accent, gender or engine; arrows, Home/End, Enter and Escape work as in a native select. Your own voices come
 * first, then every language by name.
 */
export function VoiceSelect({ id, label, voices, value, onChange, allowDefault, required, describedBy }: Props) {
  const { defaultVoice } = useVoices();
  const DEFAULT_LABEL = defaultLabel(defaultVoice);
  const listId = useId();
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [limit, setLimit] = useState(PAGE);

  const chosen = voices?.find((v) => v.id === value);
  const shown = value === 'default' && allowDefault ? DEFAULT_LABEL : chosen ? voiceLabel(chosen) : value;

  const groups = useMemo(() => {
    const matching = (voices ?? []).filter((v) => matchesQuery(v, query));
    const grouped = groupVoices(matching).map((g) => ({
      label: g.label,
      rows: g.voices.map((v): Row => ({
        id: v.id,
        label: v.name,
        detail: `${v.language} · ${v.gender} · ${isNatural(v) ? `natural, ${v.engine}` : v.engine}`,
      })),
    }));
    if (allowDefault && (query.trim() === '' || 'default'.startsWith(query.trim().toLowerCase()))) {
      grouped.unshift({ label: 'Default', rows: [{ id: 'default', label: DEFAULT_LABEL, detail: defaultVoice?.id ?? '' }] });
    }
    return grouped;
  }, [voices, query, allowDefault, DEFAULT_LABEL, defaultVoice]);
  const flat = useMemo(() => groups.flatMap((g) => g.rows), [groups]);

  // The active option stays in view as the arrows move.
  useEffect(() => {
    if (open) list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active, open]);

  /** Moves the highlight, rendering more rows first when it goes past the ones on screen. */
  function highlight(i: number) {
    if (i >= limit) setLimit(i + PAGE);
    setActive(i);
  }

  function openList() {
    if (open) return;
    const index = flat.findIndex((r) => r.id === value);
    setActive(Math.max(0, index));
    if (index >= limit) setLimit(index + PAGE);
    setOpen(true);
  }

  function close() {
    setOpen(false);
    setQuery('');
  }

  function choose(row: Row | undefined) {
    if (!row) return;
    onChange(row.id);
    close();
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const last = flat.length - 1;
    const moves: Record<string, () => number> = {
      ArrowDown: () => Math.min(last, active + 1),
      ArrowUp: () => Math.max(0, active - 1),
      PageDown: () => Math.min(last, active + 10),
      PageUp: () => Math.max(0, active - 10),
    };
    if (event.key in moves) {
      event.preventDefault();
      if (!open) openList();
      else highlight(moves[event.key]());
    } else if (open && (event.key === 'Home' || event.key === 'End') && query === '') {
      event.preventDefault();
      highlight(event.key === 'Home' ? 0 : last);
    } else if (event.key === 'Enter' && open) {
      event.preventDefault();
      choose(flat[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      close();
    } else if (event.key === 'Tab' && open) {
      close();
    }
  }

  let index = -1;
  let rendered = 0;
  const activeId = open && flat[active] ? `${listId}-${active}` : undefined;

  return (
    <div className="field voice-select">
      <label htmlFor={id}>{label}</label>
      <div className="combo">
        <input
          id={id}
          ref={input}
          role="combobox"
          type="text"
          autoComplete="off"
          spellCheck={false}
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activeId}
          aria-describedby={describedBy}
          required={required}
          disabled={voices === null}
          placeholder={open ? 'Type a name, language, accent…' : undefined}
          value={open ? query : voices === null ? 'Loading voices…' : shown}
          onFocus={(e) => e.currentTarget.select()}
          onClick={openList}
          onChange={(e) => {
            // Typing starts from the top of the new list.
            setQuery(e.target.value);
            setActive(0);
            setLimit(PAGE);
            if (!open) setOpen(true);
          }}
          onKeyDown={onKeyDown}
          onBlur={(e) => {
            // A click on an option lands on the list first; only leaving the whole picker closes it.
            if (!e.currentTarget.parentElement?.contains(e.relatedTarget)) close();
          }}
        />
        <button
          type="button"
          className="combo-toggle"
          tabIndex={-1}
          aria-label={`Show all voices for ${label}`}
          disabled={voices === null}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => {
            if (open) close();
            else {
              openList();
              input.current?.focus();
            }
          }}
        >
          ▾
        </button>
        <div
          id={listId}
          ref={list}
          role="listbox"
          aria-label={label}
          className="combo-list"
          hidden={!open}
          tabIndex={-1}
          onScroll={(e) => {
            const el = e.currentTarget;
            if (el.scrollTop + el.clientHeight > el.scrollHeight - 200 && limit < flat.length) setLimit(limit + PAGE);
          }}
        >
          {open
            ? groups.map((g) => {
                if (rendered >= limit) return null;
                return (
                  <div key={g.label} role="group" aria-label={g.label} data-label={g.label} className="combo-group">
                    {g.rows.map((row) => {
                      index += 1;
                      if (rendered >= limit) return null;
                      rendered += 1;
                      const i = index;
                      return (
                        <div
                          key={row.id}
                          id={`${listId}-${i}`}
                          role="option"
                          data-index={i}
                          data-voice-id={row.id}
                          aria-selected={row.id === value}
                          className={i === active ? 'combo-option active' : 'combo-option'}
                          onMouseDown={(e) => e.preventDefault()}
                          onMouseMove={() => i !== active && setActive(i)}
                          onClick={() => choose(row)}
                        >
                          <span className="name">{row.label}</span> <span className="detail">{row.detail}</span>
                        </div>
                      );
                    })}
                  </div>
                );
              })
            : null}
        </div>
      </div>
      {open ? (
        <small className="combo-count" aria-live="polite">
          {flat.length === 0
            ? `No voice matches “${query.trim()}”.`
            : `${flat.length} ${flat.length === 1 ? 'voice' : 'voices'}${query.trim() ? ` matching “${query.trim()}”` : ''}`}
        </small>
      ) : null}
    </div>
  );
}
