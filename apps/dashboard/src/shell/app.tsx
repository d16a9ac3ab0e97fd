import { useEffect, useState } from 'react';
import { onUnauthorized } from '../api/client.ts';
import { LoginPage } from '../auth/login-page.tsx';
import { clearSecretKey, readSecretKey } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { AgentsPage } from '../pages/agents/agents-page.tsx';
import { ConversationsPage } from '../pages/conversations/conversations-page.tsx';
import { TranscriptPage } from '../pages/conversations/transcript-page.tsx';
import { EditorPage } from '../pages/editor/editor-page.tsx';
import type { Route } from '../router/routes.ts';
import { routeHref } from '../router/routes.ts';
import { useRoute } from '../router/use-route.ts';
import { LanguageSwitch } from './language-switch.tsx';

/** Login gate, top navigation and the current screen. */
export function App() {
  const { t } = useI18n();
  const [signedIn, setSignedIn] = useState(() => Boolean(readSecretKey()));
  const route = useRoute();
  useEffect(
    () =>
      onUnauthorized(() => {
        clearSecretKey();
        setSignedIn(false);
      }),
    [],
  );
  useEffect(() => {
    document.title = `${t('app.name')}`;
  }, [t]);
  if (!signedIn) return <LoginPage onLogin={() => setSignedIn(true)} />;
  const section = route.name === 'conversations' || route.name === 'conversation' ? 'conversations' : 'agents';
  return (
    <>
      <button type="button" className="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        {/* A button, not a link: the URL hash belongs to the router. */}
        {t('app.skip')}
      </button>
      <header className="topbar">
        <a className="brand" href={routeHref({ name: 'agents' })}>
          {t('app.name')}
        </a>
        <nav aria-label={t('nav.label')}>
          <a href={routeHref({ name: 'agents' })} aria-current={section === 'agents' ? 'page' : undefined}>
            {t('nav.agents')}
          </a>
          <a
            href={routeHref({ name: 'conversations' })}
            aria-current={section === 'conversations' ? 'page' : undefined}
          >
            {t('nav.conversations')}
          </a>
        </nav>
        <div className="inline">
          <LanguageSwitch />
          <button
            type="button"
            className="secondary small"
            id="logout"
            onClick={() => {
              clearSecretKey();
              setSignedIn(false);
            }}
          >
            {t('nav.logout')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Screen route={route} />
      </main>
    </>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'agents':
      return <AgentsPage />;
    case 'new-agent':
      return <EditorPage key="editor" initialTab="settings" />;
    case 'agent':
      return <EditorPage key="editor" agentId={route.id} initialTab={route.tab} />;
    case 'conversations':
      return <ConversationsPage {...(route.agentId ? { agentId: route.agentId } : {})} />;
    case 'conversation':
      return <TranscriptPage id={route.id} />;
  }
}
