import { createContext, useCallback, useContext } from 'react';
import { VoxsmithError } from './api.ts';
import { message } from './components/feedback.tsx';
import type { User } from './types.ts';

export interface SessionValue {
  user: User;
  signOut: () => Promise<void>;
  /** Call when the service says the session is gone (401): the app shows sign-in again. */
  expired: () => void;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}

/** Turns a failed call into words for the page, and sends the person back to sign-in if the session is gone. */
export function useFailure(): (err: unknown) => string {
  const session = useContext(SessionContext);
  // Stable while the session is, so pages can name it in their effects' dependencies without refetching.
  return useCallback(
    (err: unknown) => {
      if (err instanceof VoxsmithError && err.status === 401 && err.code === 'unauthorized') session?.expired();
      return message(err);
    },
    [session],
  );
}
