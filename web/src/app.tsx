import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, VoxsmithError } from './api.ts';
import { ErrorText, message } from './components/feedback.tsx';
import { Link, navigate, useLocation } from './router.tsx';
import { SessionContext, type SessionValue } from './session.ts';
import type { User } from './types.ts';
import { forgetVoices } from './voices-store.ts';
import { SignInPage } from './pages/sign-in.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { VoicesPage } from './pages/voices.tsx';
import { VoicePage } from './pages/voice.tsx';
import { ForgePage } from './pages/forge.tsx';
import { KeysPage } from './pages/keys.tsx';
import { UsagePage } from './pages/usage.tsx';
import { LexiconsPage } from './pages/lexicons.tsx';
import { BooksPage } from './pages/books.tsx';
import { HomeAssistantPage } from './pages/home-assistant.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { NaturalVoicesPage } from './pages/natural-voices.tsx';

const NAV = [
  { to: '/', label: 'Playground' },
  { to: '/voices', label: 'Voices' },
  { to: '/forge', label: 'Forge' },
  { to: '/books', label: 'Books' },
  { to: '/lexicons', label: 'Lexicons' },
  { to: '/keys', label: 'API keys' },
  { to: '/usage', label: 'Usage' },
  { to: '/home-assistant', label: 'Home Assistant' },
] as const;

/** Operators (the first account, ADMIN_EMAILS) also install natural voices. */
const OPERATOR_NAV = [{ to: '/natural-voices', label: 'Natural voices' }] as const;

function isCurrent(to: string, path: string): boolean {
  return to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`);
}

function Routes({ path }: { path: string }) {
  if (path === '/') return <PlaygroundPage />;
  if (path === '/voices') return <VoicesPage />;
  const voice = /^\/voices\/([^/]+)$/.exec(path);
  if (voice) return <VoicePage id={decodeURIComponent(voice[1])} />;
  if (path === '/forge') return <ForgePage />;
  if (path === '/lexicons') return <LexiconsPage />;
  if (path === '/books') return <BooksPage />;
  if (path === '/keys') return <KeysPage />;
  if (path === '/usage') return <UsagePage />;
  if (path === '/natural-voices') return <NaturalVoicesPage />;
  if (path === '/home-assistant') return <HomeAssistantPage />;
  return <NotFoundPage />;
}

export function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const [bootError, setBootError] = useState<string | null>(null);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  // The phone layout folds navigation and account into one menu; it starts closed on every page.
  const [menuOpen, setMenuOpen] = useState(false);
  const { path } = useLocation();

  const check = useCallback(async () => {
    try {
      setUser(await api.session());
      setBootError(null);
    } catch (err) {
      setBootError(message(err));
    }
  }, []);

  useEffect(() => {
    void check();
  }, [check]);

  const session = useMemo<SessionValue | null>(() => {
    if (!user) return null;
    return {
      user,
      expired: () => {
        forgetVoices();
        setUser(null);
      },
      signOut: async () => {
        setSignOutError(null);
        try {
          await api.logout();
        } catch (err) {
          // Already signed out elsewhere is fine; anything else the person should see.
          if (!(err instanceof VoxsmithError && err.status === 401)) {
            setSignOutError(message(err));
            return;
          }
        }
        forgetVoices();
        setUser(null);
        navigate('/');
      },
    };
  }, [user]);

  if (user === undefined) {
    return (
      <main id="main" className="boot">
        {bootError ? (
          <>
            <ErrorText>{bootError}</ErrorText>
            <button type="button" onClick={() => void check()}>
              Try again
            </button>
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    );
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/" className="brand" aria-label="Voxsmith home">
          <img src="/favicon.svg" alt="" width="28" height="28" />
          <span>Voxsmith</span>
        </Link>
        {session ? (
          <>
            <button
              type="button"
              className="menu-toggle quiet"
              aria-expanded={menuOpen}
              aria-controls="site-menu"
              onClick={() => setMenuOpen((o) => !o)}
            >
              <span aria-hidden="true">☰</span> Menu
            </button>
            <div id="site-menu" className={menuOpen ? 'site-menu open' : 'site-menu'}>
              <nav aria-label="Main">
                <ul>
                  {[...NAV, ...(session.user.operator ? OPERATOR_NAV : [])].map((item) => (
                    <li key={item.to}>
                      <Link to={item.to} aria-current={isCurrent(item.to, path) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                        {item.label}
                      </Link>
                    </li>
                  ))}
                  <li>
                    <a href="/docs" className="docs-link">
                      API docs
                    </a>
                  </li>
                </ul>
              </nav>
              <div className="account">
                <span className="who" title={session.user.email}>
                  {session.user.email}
                </span>
                <button type="button" className="quiet" title={`Signed in as ${session.user.email}`} onClick={() => void session.signOut()}>
                  Sign out
                </button>
              </div>
            </div>
          </>
        ) : (
          <a href="/docs" className="docs-link header-docs">
            API docs
          </a>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorText>{signOutError}</ErrorText>
        {session ? (
          <SessionContext.Provider value={session}>
            <Routes path={path} />
          </SessionContext.Provider>
        ) : (
          <SignInPage />
        )}
      </main>
    </>
  );
}
