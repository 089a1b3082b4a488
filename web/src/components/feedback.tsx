import type { ReactNode } from 'react';

/** An error in words, announced by screen readers as soon as it appears. */
export function ErrorText({ children, id }: { children: ReactNode; id?: string }) {
  if (children === null || children === undefined || children === '') return null;
  return (
    <p className="error" role="alert" id={id}>
      {children}
    </p>
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

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
