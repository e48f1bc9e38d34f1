import { useEffect, useMemo, useRef, useState } from 'react';
import { Session, SessionClient } from './api/session-client';
import { SignInForm } from './components/sign-in-form';
import { ThemeToggle } from './components/theme-toggle';
import { AccountPage } from './pages/account-page';
import { AuditPage } from './pages/audit-page';
import { LivePage } from './pages/live-page';
import { MembersPage } from './pages/members-page';
import { SecurityPage } from './pages/security-page';
import { TranscriptPage } from './pages/transcript-page';
import { TranscriptionsPage } from './pages/transcriptions-page';
import { VocabulariesPage } from './pages/vocabularies-page';
import { WebhooksPage } from './pages/webhooks-page';
import { mayHaveSession } from './logic/signed-in-hint';
import { singleSignOnHint } from './logic/single-sign-on';
import { BASE, navigate, useRoute } from './router';
import { ClientContext } from './session-context';

const NAV = [
  { route: '/', label: 'Transcriptions' },
  { route: '/live', label: 'Live' },
  { route: '/vocabularies', label: 'Vocabularies' },
  { route: '/webhooks', label: 'Webhooks' },
  { route: '/account', label: 'Account' },
  { route: '/settings/members', label: 'Members' },
  { route: '/settings/security', label: 'Security' },
  { route: '/settings/audit', label: 'Audit' },
];

function Page({ route }: { route: string }) {
  const transcript = /^\/transcriptions\/([0-9a-f-]{36})$/.exec(route);
  if (transcript) return <TranscriptPage id={transcript[1]} />;
  switch (route) {
    case '/live':
      return <LivePage />;
    case '/vocabularies':
      return <VocabulariesPage />;
    case '/webhooks':
      return <WebhooksPage />;
    case '/account':
      return <AccountPage />;
    case '/settings/members':
      return <MembersPage />;
    case '/settings/security':
      return <SecurityPage />;
    case '/settings/audit':
      return <AuditPage />;
    default:
      return <TranscriptionsPage />;
  }
}

/** The sign-in dialog shown over the page when the session ran out (the page and its state stay). */
function ExpiredDialog({ client, onDone }: { client: SessionClient; onDone: (s: Session | null) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="expired-title" onCancel={() => onDone(null)}>
      <h2 id="expired-title">Your session has expired</h2>
      <p>Sign in again to continue where you were.</p>
      <SignInForm client={client} onSignedIn={onDone} />
      <button type="button" onClick={() => onDone(null)}>
        Cancel
      </button>
    </dialog>
  );
}

export function App() {
  const client = useMemo(() => new SessionClient(), []);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [expired, setExpired] = useState<((s: Session | null) => void) | null>(null);
  const route = useRoute();

  useEffect(() => {
    const unsubscribe = client.subscribe(setSession);
    client.onExpired = () => new Promise((resolve) => setExpired(() => resolve));
    // A reload keeps no token in memory: the refresh cookie restores the session. It is asked for only when
    // the service's readable hint says one may exist, so a visitor's first load makes no failing request.
    if (mayHaveSession(document.cookie)) void client.refresh().then((restored) => setSession(restored));
    else setSession(null);
    return unsubscribe;
  }, [client]);

  // After a client-side navigation, focus moves to the new page's content (as a page load would reset it).
  const firstRoute = useRef(route);
  useEffect(() => {
    if (route !== firstRoute.current) document.getElementById('main')?.focus();
  }, [route]);

  if (session === undefined) return <p className="centered">Loading…</p>;
  if (session === null) {
    const sso = singleSignOnHint(window.location.search);
    return (
      <main className="sign-in">
        <h1>Sign in</h1>
        <p>Transcription dashboard</p>
        {sso.error && (
          <p role="alert" className="error">
            {sso.error}
          </p>
        )}
        <SignInForm client={client} onSignedIn={setSession} />
        {sso.startUrl && (
          <a className="button" href={sso.startUrl}>
            Sign in with single sign-on
          </a>
        )}
        <ThemeToggle />
      </main>
    );
  }
  const active = (item: string) =>
    item === '/' ? route === '/' || route.startsWith('/transcriptions') : route === item;
  return (
    <ClientContext.Provider value={client}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Transcriptions</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.route}>
                <a
                  href={`${BASE}${item.route}`}
                  aria-current={active(item.route) ? 'page' : undefined}
                  onClick={(event) => {
                    event.preventDefault();
                    navigate(item.route);
                  }}
                >
                  {item.label}
                </a>
              </li>
            ))}
            <li>
              {/* The service's own API reference (Swagger UI of openapi.yaml), outside the app. */}
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <div className="user">
          <span className="muted">{session.user.email}</span>
          <ThemeToggle />
          <button type="button" onClick={() => void client.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
      {expired && (
        <ExpiredDialog
          client={client}
          onDone={(renewed) => {
            expired(renewed);
            setExpired(null);
          }}
        />
      )}
    </ClientContext.Provider>
  );
}
