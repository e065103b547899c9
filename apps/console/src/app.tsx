import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { AuthError, accessToken, completeSignIn, onSignedOut, signOut, startSignIn } from './auth';
import { Loading } from './components';
import { Overview } from './pages/overview';
import { Models } from './pages/models';
import { Tasks } from './pages/tasks';
import { TaskDetail } from './pages/task';
import { Billing } from './pages/billing';
import { Assets } from './pages/assets';
import { AssetDetail } from './pages/asset';
import { Voices } from './pages/voices';
import { Developers } from './pages/developers';

const NAV: { href: string; label: string; match: (p: string) => boolean }[] = [
  { href: '/console/', label: 'Overview', match: (p) => p === '/console/' || p === '/console' },
  { href: '/console/models', label: 'Models', match: (p) => p.startsWith('/console/models') },
  { href: '/console/tasks', label: 'Tasks', match: (p) => p.startsWith('/console/tasks') },
  { href: '/console/billing', label: 'Billing', match: (p) => p.startsWith('/console/billing') },
  { href: '/console/assets', label: 'Assets', match: (p) => p.startsWith('/console/assets') },
  { href: '/console/voices', label: 'Voices', match: (p) => p.startsWith('/console/voices') },
  { href: '/console/developers', label: 'Developers', match: (p) => p.startsWith('/console/developers') },
];

export const Logo = () => (
  <svg class="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
    <rect width="32" height="32" rx="8" fill="#4f46e5" />
    <path d="M9 17.5a7 7 0 0 1 12.6-4.2M23 14.5a7 7 0 0 1-12.6 4.2" stroke="#fff" stroke-width="2.6" fill="none" stroke-linecap="round" />
    <circle cx="21.8" cy="13.2" r="1.9" fill="#a5b4fc" />
    <circle cx="10.2" cy="18.8" r="1.9" fill="#a5b4fc" />
  </svg>
);

function Shell({ children }: { children: ComponentChildren }) {
  const { path } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const [leaving, setLeaving] = useState(false);
  // Move focus to the new page's content (screen readers announce the new heading).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
    window.scrollTo(0, 0);
  }, [path]);
  const doSignOut = async () => {
    setLeaving(true);
    await signOut();
    location.assign('/console/?signed_out=1');
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <a class="brand" href="/console/">
          <Logo />
          <span>gensvc</span>
          <span class="brand-sub">console</span>
        </a>
        <button type="button" class="btn btn-ghost" onClick={doSignOut} disabled={leaving}>
          {leaving ? 'Signing out…' : 'Sign out'}
        </button>
      </header>
      <nav class="sidenav" aria-label="Console">
        <ul>
          {NAV.map((n) => (
            <li key={n.href}>
              <a href={n.href} aria-current={n.match(path) ? 'page' : undefined}>
                {n.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

function NotFound() {
  useEffect(() => {
    document.title = 'Not found · gensvc console';
  }, []);
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        This address is not a page of the console. <a href="/console/">Go to the overview</a>.
      </p>
    </section>
  );
}

type Phase = { kind: 'checking' } | { kind: 'signing-in' } | { kind: 'ready' } | { kind: 'signed-out' } | { kind: 'failed'; message: string };

function Gate({ children }: { children: ComponentChildren }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  useEffect(() => {
    let cancelled = false;
    const here = location.pathname + location.search;
    (async () => {
      try {
        if (location.pathname === '/console/callback') {
          const back = await completeSignIn(location.search);
          history.replaceState(null, '', back);
          if (!cancelled) setPhase({ kind: 'ready' });
          return;
        }
        if (new URLSearchParams(location.search).get('signed_out') === '1') {
          history.replaceState(null, '', '/console/');
          setPhase({ kind: 'signed-out' });
          return;
        }
        const token = await accessToken();
        if (cancelled) return;
        if (token) setPhase({ kind: 'ready' });
        else {
          setPhase({ kind: 'signing-in' });
          await startSignIn(here);
        }
      } catch (err) {
        if (!cancelled) setPhase({ kind: 'failed', message: err instanceof AuthError || err instanceof Error ? err.message : String(err) });
      }
    })();
    const off = onSignedOut(() => setPhase({ kind: 'signed-out' }));
    return () => {
      cancelled = true;
      off();
    };
  }, []);
  if (phase.kind === 'ready') return <>{children}</>;
  return (
    <div class="gate">
      <div class="gate-card">
        <div class="brand brand-large">
          <Logo />
          <span>gensvc</span>
        </div>
        {phase.kind === 'checking' && <Loading label="Opening the console…" />}
        {phase.kind === 'signing-in' && <Loading label="Taking you to sign in…" />}
        {phase.kind === 'signed-out' && (
          <>
            <h1>You are signed out</h1>
            <p class="muted">The console's access to your account has been revoked in this browser.</p>
            <button type="button" class="btn btn-primary" onClick={() => startSignIn('/console/')}>
              Sign in
            </button>
          </>
        )}
        {phase.kind === 'failed' && (
          <>
            <h1>Sign-in did not complete</h1>
            <p class="alert alert-error" role="alert">
              {phase.message}
            </p>
            <button type="button" class="btn btn-primary" onClick={() => startSignIn('/console/')}>
              Sign in again
            </button>
          </>
        )}
      </div>
    </div>
  );
}

export function App() {
  return (
    <Gate>
      <LocationProvider scope="/console">
        <Shell>
          <Router>
            <Route path="/console/" component={Overview} />
            <Route path="/console/models" component={Models} />
            <Route path="/console/tasks" component={Tasks} />
            <Route path="/console/tasks/:id" component={TaskDetail} />
            <Route path="/console/billing" component={Billing} />
            <Route path="/console/assets" component={Assets} />
            <Route path="/console/assets/:id" component={AssetDetail} />
            <Route path="/console/voices" component={Voices} />
            <Route path="/console/developers" component={Developers} />
            <Route default component={NotFound} />
          </Router>
        </Shell>
      </LocationProvider>
    </Gate>
  );
}
