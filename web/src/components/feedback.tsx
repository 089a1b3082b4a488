import type { ReactNode } from 'react';
import { VoxsmithError } from '../api.ts';

/** An error in words, announced by screen readers as soon as it appears. */
export function ErrorText({ children, id }: { children: ReactNode; id?: string }) {
  if (children === null || children === undefined || children === '') return null;
  return (
    <p className="error" role="alert" id={id}>
      {children}
    </p>
  );
}

/** An error beside a control (a play button), in its line; announced like ErrorText. */
export function InlineError({ children }: { children: string | null }) {
  if (!children) return null;
  return (
    <span className="error inline" role="alert">
      {children}
    </span>
  );
}

/** A polite live region; it stays mounted so updates are announced. */
export function StatusText({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p className={className ? `status ${className}` : 'status'} role="status" aria-live="polite">
      {children}
    </p>
  );
}

/** A failure in words for the person: the service's own message, with the wait when it is a rate limit. */
export function message(err: unknown): string {
  if (err instanceof VoxsmithError) {
    if (err.code === 'network') return 'Could not reach the service. Check your connection and try again.';
    if (err.status === 429 && err.retryAfter !== undefined) return `${err.message} (try again in ${err.retryAfter} s)`;
  }
  return err instanceof Error ? err.message : String(err);
}
