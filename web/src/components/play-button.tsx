import { useEffect, useRef, useState } from 'react';
import { previewBlob } from '../api.ts';
import type { Voice } from '../types.ts';
import { InlineError, message } from './feedback.tsx';

export type PlayState = 'idle' | 'loading' | 'playing' | 'ended' | 'error';

// One preview at a time across the page, and each preview synthesized once per visit.
const player = document.createElement('audio');
const cache = new Map<string, string>();
let current: { owner: symbol; reset: () => void } | null = null;

function release(owner: symbol): void {
  if (current?.owner !== owner) return;
  player.pause();
  player.onended = null;
  player.onerror = null;
  current = null;
}

async function previewUrl(voiceId: string, language: string): Promise<string> {
  const key = `${voiceId}\n${language}`;
  const hit = cache.get(key);
  if (hit) return hit;
  // The server's preview route: its fixed line, from its cache, not billed as usage.
  const blob = await previewBlob(voiceId, language);
  const url = URL.createObjectURL(blob);
  cache.set(key, url);
  return url;
}

/** Forget cached previews of a voice (it was deleted). */
export function dropPreview(voiceId: string): void {
  for (const [key, url] of cache) {
    if (key.startsWith(`${voiceId}\n`)) {
      URL.revokeObjectURL(url);
      cache.delete(key);
    }
  }
}

/**
 * Speaks the preview line of the voice's language, or of `language` (a bred child's parents speak the child's
 * line). data-state lets tests (and styles) see what it is doing.
 */
export function PlayButton({ voice, language, label }: { voice: Voice; language?: string; label?: string }) {
  const [state, setState] = useState<PlayState>('idle');
  const [error, setError] = useState<string | null>(null);
  const owner = useRef(Symbol('preview'));
  const lineLanguage = language ?? voice.language;

  useEffect(() => {
    const me = owner.current;
    return () => release(me);
  }, []);

  async function play() {
    const me = owner.current;
    if (state === 'playing') {
      release(me);
      setState('idle');
      return;
    }
    current?.reset();
    setError(null);
    setState('loading');
    try {
      const url = await previewUrl(voice.id, lineLanguage);
      current = { owner: me, reset: () => (release(me), setState('idle')) };
      player.src = url;
      player.onended = () => {
        release(me);
        setState('ended');
      };
      player.onerror = () => {
        release(me);
        setState('error');
        setError('The browser could not play this audio.');
      };
      setState('playing');
      await player.play();
    } catch (err) {
      // Another preview took over before this one started: not an error.
      if (err instanceof DOMException && err.name === 'AbortError') return;
      release(me);
      setState('error');
      setError(message(err));
    }
  }

  const name = label ?? voice.name;
  const busy = state === 'loading';
  return (
    <span className="play">
      <button
        type="button"
        className="play-button"
        data-state={state}
        aria-label={state === 'playing' ? `Stop ${name}` : `Play a preview of ${name}`}
        aria-busy={busy}
        disabled={busy}
        onClick={() => void play()}
      >
        <span aria-hidden="true">{state === 'playing' ? '■' : busy ? '…' : '▶'}</span> {state === 'playing' ? 'Stop' : 'Play'}
      </button>
      <InlineError>{error}</InlineError>
    </span>
  );
}
