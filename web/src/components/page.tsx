import { useEffect, useRef, type ReactNode } from 'react';
import { useTitle } from '../router.tsx';

let firstPage = true;

/**
 * Every page starts with this heading. After a client-side navigation focus moves to it, so keyboard and
 * screen-reader users land at the top of the new page instead of on a link that no longer exists.
 */
export function Page({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useTitle(title);
  useEffect(() => {
    if (firstPage) {
      firstPage = false;
      return;
    }
    heading.current?.focus();
  }, []);
  return (
    <>
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {intro ? <p className="intro">{intro}</p> : null}
      {children}
    </>
  );
}
