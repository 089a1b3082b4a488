import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import { isNatural, useVoices } from '../voices-store.ts';

/**
 * While the server has no natural (neural) voice, says how to get one: its operator gets the button to the page
 * that installs them, everyone else a sentence (only the operator can install).
 */
export function NaturalVoicesHint() {
  const { user } = useSession();
  const { voices } = useVoices();
  if (voices === null || voices.some(isNatural)) return null;
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
