import type { Voice } from '../types.ts';
import { groupVoices, voiceLabel } from '../voices-store.ts';

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

/** A native select grouped by language: keyboard, type-ahead and screen readers work without help. */
export function VoiceSelect({ id, label, voices, value, onChange, allowDefault, required, describedBy }: Props) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} required={required} aria-describedby={describedBy} disabled={voices === null}>
        {voices === null ? <option value={value}>Loading voices…</option> : null}
        {allowDefault ? <option value="default">Default voice</option> : <option value="">Choose a voice…</option>}
        {groupVoices(voices ?? []).map((group) => (
          <optgroup key={group.label} label={group.label}>
            {group.voices.map((v) => (
              <option key={v.id} value={v.id}>
                {voiceLabel(v)}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}
