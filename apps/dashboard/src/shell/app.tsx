import { lazy, Suspense, useEffect } from 'react';
import { AcceptInvitationPage } from '../auth/accept-invitation-page.tsx';
import { ConfirmEmailPage } from '../auth/confirm-email-page.tsx';
import { LoginPage } from '../auth/login-page.tsx';
import { ForgotPasswordPage, ResetPasswordPage } from '../auth/password-reset-page.tsx';
import { logout, restoreSession, useAuth } from '../auth/session.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { AgentsPage } from '../pages/agents/agents-page.tsx';
import { ConversationsPage } from '../pages/conversations/conversations-page.tsx';
import { TranscriptPage } from '../pages/conversations/transcript-page.tsx';
import { EditorPage } from '../pages/editor/editor-page.tsx';
import { InboxPage } from '../pages/inbox/inbox-page.tsx';
import type { Route } from '../router/routes.ts';
import { routeHref } from '../router/routes.ts';
import { useRoute } from '../router/use-route.ts';
import { DemoContactsPanel } from './demo-contacts-panel.tsx';
import { DemoModelNotice } from './demo-model-notice.tsx';
import { InboxNavBadge, useInboxFeed } from './inbox-feed.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import { TenantSwitch } from './tenant-switch.tsx';
import { VerifyEmailNotice } from './verify-email-notice.tsx';

// Charts and settings are not needed for the first screen: their code loads when opened.
const UsagePage = lazy(() => import('../pages/usage/usage-page.tsx'));
const SettingsPage = lazy(() => import('../pages/settings/settings-page.tsx'));
const KnowledgePage = lazy(() => import('../pages/knowledge/knowledge-page.tsx'));
const KnowledgeBasePage = lazy(() => import('../pages/knowledge/knowledge-base-page.tsx'));

type Section = 'agents' | 'inbox' | 'conversations' | 'knowledge' | 'usage' | 'settings';

function sectionOf(route: Route): Section {
  if (route.name === 'conversations' || route.name === 'conversation') return 'conversations';
  if (route.name === 'inbox') return 'inbox';
  if (route.name === 'knowledge' || route.name === 'knowledge-base') return 'knowledge';
  if (route.name === 'usage' || route.name === 'settings') return route.name;
  return 'agents';
}

/** Login gate, top navigation and the current screen. */
export function App() {
  const { t } = useI18n();
  const auth = useAuth();
  const route = useRoute();
  useEffect(() => {
    void restoreSession();
  }, []);
  useInboxFeed(auth);
  useEffect(() => {
    document.title = `${t('app.name')}`;
  }, [t]);
  // The invitation link works signed in or not: it signs in as the invited user.
  if (route.name === 'accept-invitation') return <AcceptInvitationPage token={route.token} />;
  // Mailed links, and asking for one, work signed in or not.
  if (route.name === 'forgot-password') return <ForgotPasswordPage />;
  if (route.name === 'reset-password') return <ResetPasswordPage token={route.token} />;
  if (route.name === 'confirm-email') return <ConfirmEmailPage token={route.token} />;
  if (auth.status === 'checking')
    return (
      <main className="login">
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  if (auth.status === 'signed-out') return <LoginPage />;
  const section = sectionOf(route);
  const tenantKey = auth.status === 'user' ? (auth.tenant?.tenant_id ?? 'none') : 'key';
  const nav: Array<[Section, Route]> = [
    ['agents', { name: 'agents' }],
    ['inbox', { name: 'inbox' }],
    ['conversations', { name: 'conversations' }],
    ['knowledge', { name: 'knowledge' }],
    ['usage', { name: 'usage' }],
    ['settings', { name: 'settings', tab: 'keys' }],
  ];
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
          {nav.map(([name, target]) => (
            <a
              key={name}
              id={`nav-${name}`}
              href={routeHref(target)}
              aria-current={section === name ? 'page' : undefined}
            >
              {t(`nav.${name}`)}
              {name === 'inbox' ? <InboxNavBadge /> : null}
            </a>
          ))}
        </nav>
        <div className="inline">
          <TenantSwitch />
          <LanguageSwitch />
          {auth.status === 'user' ? (
            <span className="muted user-email" id="user-email">
              {auth.session.user.email}
            </span>
          ) : (
            <span className="badge" title={t('nav.keyModeHelp')}>
              {t('nav.keyMode')}
            </span>
          )}
          <button type="button" className="secondary small" id="logout" onClick={() => void logout()}>
            {t('nav.logout')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <DemoModelNotice />
        <DemoContactsPanel />
        <VerifyEmailNotice />
        {auth.status === 'user' && !auth.tenant ? (
          <p className="empty" id="no-tenant">
            {t('auth.noTenant')}
          </p>
        ) : (
          // A tenant switch remounts the screen, so nothing of the other tenant stays on it.
          <Suspense key={tenantKey} fallback={<p role="status">{t('common.loading')}</p>}>
            <Screen route={route} />
          </Suspense>
        )}
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
      return (
        <EditorPage
          key="editor"
          agentId={route.id}
          initialTab={route.tab}
          {...(route.testId ? { testId: route.testId } : {})}
          {...(route.testRunId ? { testRunId: route.testRunId } : {})}
        />
      );
    case 'conversations': {
      const { name: _name, ...filter } = route;
      return <ConversationsPage filter={filter} />;
    }
    case 'conversation':
      return <TranscriptPage id={route.id} />;
    case 'inbox':
      return <InboxPage key={route.id ?? 'none'} {...(route.id ? { id: route.id } : {})} />;
    case 'usage':
      return <UsagePage {...(route.agentId ? { agentId: route.agentId } : {})} days={route.days ?? 30} />;
    case 'knowledge':
      return <KnowledgePage />;
    case 'knowledge-base':
      return <KnowledgeBasePage key={route.id} id={route.id} />;
    case 'settings':
      return <SettingsPage tab={route.tab} />;
    case 'accept-invitation':
    case 'forgot-password':
    case 'reset-password':
    case 'confirm-email':
      return null;
  }
}
