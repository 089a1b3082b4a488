import { useCallback, useEffect, useState } from 'react';
import { useFailure } from './session.ts';

export interface LoadedList<T> {
  /** Null until the first answer. */
  list: T[] | null;
  /** The last failure in words; null once a fetch succeeds. */
  error: string | null;
  /** Fetches the list again (after the page changed it). */
  reload: () => Promise<void>;
}

/**
 * A list a page fetches when it mounts. `fetchList` must stay the same function between renders (define it
 * at module level): a new one each render would fetch the list again on every render.
 */
export function useLoadedList<T>(fetchList: () => Promise<T[]>): LoadedList<T> {
  const fail = useFailure();
  const [list, setList] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setList(await fetchList());
      setError(null);
    } catch (err) {
      setError(fail(err));
    }
  }, [fail, fetchList]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { list, error, reload };
}
