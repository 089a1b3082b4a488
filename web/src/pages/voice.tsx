import { useEffect, useState } from 'react';
import { api, VoxsmithError } from '../api.ts';
import { CloneFit } from '../components/clone-fit.tsx';
import { ErrorText } from '../components/feedback.tsx';
import { Page } from '../components/page.tsx';
import { PlayButton } from '../components/play-button.tsx';
import { Link } from '../router.tsx';
import { useFailure } from '../session.ts';
import type { Voice } from '../types.ts';
import { isOwn, useVoices } from '../voices-store.ts';

/** Generations shown above a voice: parents and grandparents. */
const GENERATIONS = 2;

function useVoice(id: string, known: Voice[] | null): { voice: Voice | null; error: string | null } {
  const fail = useFailure();
  const [voice, setVoice] = useState<Voice | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const fromList = known?.find((v) => v.id === id) ?? null;
    if (fromList) {
      setVoice(fromList);
      return;
    }
    api
      .getVoice(id)
      .then((v) => live && setVoice(v))
      .catch((err: unknown) => {
        if (!live) return;
        setError(err instanceof VoxsmithError && err.status === 404 ? `No voice “${id}” (it may have been deleted).` : fail(err));
      });
    return () => {
      live = false;
    };
  }, [id, known, fail]);
  return { voice, error };
}

function VoiceBox({ voice, relation }: { voice: Voice; relation: string }) {
  return (
    <div className={isOwn(voice) ? 'voice-box own' : 'voice-box'}>
      <span className="relation">{relation}</span>
      <strong>{isOwn(voice) ? <Link to={`/voices/${encodeURIComponent(voice.id)}`}>{voice.name}</Link> : voice.name}</strong>
      <span className="meta">
        {voice.language_name} · {voice.gender} · {voice.source === 'builtin' ? 'built-in' : voice.source === 'breed' ? 'bred' : 'cloned'}
      </span>
      <PlayButton voice={voice} />
    </div>
  );
}

function Ancestors({ id, relation, depth, known }: { id: string; relation: string; depth: number; known: Voice[] | null }) {
  const { voice, error } = useVoice(id, known);
  if (error) return <li className="tree-node missing">{error}</li>;
  if (!voice) return <li className="tree-node">Loading…</li>;
  const parents = voice.parents ?? [];
  const next = relation === 'Parent' ? 'Grandparent' : `Great-${relation.toLowerCase()}`;
  return (
    <li className="tree-node">
      <VoiceBox voice={voice} relation={relation} />
      {depth > 1 && parents.length > 0 ? (
        <ul className="tree-level">
          {parents.map((p) => (
            <Ancestors key={p} id={p} relation={next} depth={depth - 1} known={known} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function VoicePage({ id }: { id: string }) {
  const all = useVoices();
  const { voice, error } = useVoice(id, all.voices);
  return (
    <Page title={voice ? `${voice.name}` : 'Voice'}>
      <p>
        <Link to="/voices">← All voices</Link>
      </p>
      <ErrorText>{error}</ErrorText>
      {voice ? (
        <>
          <section className="card" aria-labelledby="voice-about">
            <h2 id="voice-about" className="visually-hidden">
              About this voice
            </h2>
            <p className="meta">
              {voice.language_name} <span className="tag">{voice.language}</span> · {voice.gender} · {voice.engine} ·{' '}
              <code>{voice.id}</code>
            </p>
            <p>{voice.description}</p>
            <CloneFit voice={voice} />
            <div className="actions">
              <PlayButton voice={voice} />
              <Link to={`/?voice=${encodeURIComponent(voice.id)}`} className="button quiet">
                Use in the playground
              </Link>
            </div>
          </section>
          <section aria-labelledby="tree-heading">
            <h2 id="tree-heading">Family tree</h2>
            {voice.parents && voice.parents.length > 0 ? (
              <ul className="tree" aria-label={`Ancestors of ${voice.name}`}>
                {voice.parents.map((p) => (
                  <Ancestors key={p} id={p} relation="Parent" depth={GENERATIONS} known={all.voices} />
                ))}
              </ul>
            ) : (
              <p>
                {voice.source === 'clone' ? 'Cloned from a recording: it has no parent voices.' : 'A built-in voice: it has no parents.'}
              </p>
            )}
          </section>
        </>
      ) : null}
    </Page>
  );
}
