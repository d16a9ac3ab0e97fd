import { useEffect, useState } from 'react';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { Tabs } from '../../components/tabs.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { AlertsToggle, AvailabilityToggle } from './availability-toggle.tsx';
import { InboxConversation } from './inbox-conversation.tsx';
import { type InboxRow, type InboxTab, rowsOfTab } from './inbox-state.ts';
import { useInbox } from './inbox-store.ts';
import { useMe } from './use-member.ts';
import { WaitingLabel } from './waiting-label.tsx';

/**
 * The live inbox (issue 21): conversations waiting for a person and those I hold, over the
 * inbox's SSE stream; the open one on the right.
 */
export function InboxPage({ id }: { id?: string }) {
  const { t } = useI18n();
  const inbox = useInbox();
  const me = useMe();
  const [tab, setTab] = useState<InboxTab>('waiting');
  const open = id ? inbox.rows.find((r) => r.conversation_id === id) : undefined;
  // Opening a conversation I hold shows it under Mine.
  useEffect(() => {
    if (open?.mode === 'human' && open.assigned_to === me) setTab('mine');
  }, [open?.mode, open?.assigned_to, me]);
  const rows = rowsOfTab(inbox.rows, tab, me);
  const count = (which: InboxTab) => rowsOfTab(inbox.rows, which, me).length;
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>{t('inbox.title')}</h1>
          <p className="muted" id="inbox-live" data-live={inbox.live ? 'true' : 'false'}>
            {inbox.live ? t('inbox.live') : t('inbox.reconnecting')}
          </p>
        </div>
        <div className="inline">
          <AvailabilityToggle me={me} />
          <AlertsToggle />
        </div>
      </header>
      <ErrorBanner error={inbox.error} />
      <div className="inbox">
        <section className="inbox-list" aria-label={t('inbox.listLabel')}>
          <Tabs
            label={t('inbox.tabs')}
            tabs={[
              { id: 'waiting', label: t('inbox.tab.waiting'), badge: count('waiting') },
              { id: 'mine', label: t('inbox.tab.mine'), badge: count('mine') },
            ]}
            active={tab}
            onSelect={setTab}
          />
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {!inbox.loaded ? <p role="status">{t('common.loading')}</p> : null}
            {inbox.loaded && rows.length === 0 ? (
              <p className="empty" id="inbox-empty">
                {tab === 'waiting' ? t('inbox.emptyWaiting') : t('inbox.emptyMine')}
              </p>
            ) : null}
            <ul className="inbox-rows" id={`inbox-${tab}`}>
              {rows.map((row) => (
                <InboxRowView key={row.conversation_id} row={row} current={row.conversation_id === id} />
              ))}
            </ul>
          </div>
        </section>
        <section className="inbox-detail" aria-label={t('inbox.detailLabel')}>
          {id ? <InboxConversation key={id} id={id} /> : <p className="empty">{t('inbox.pick')}</p>}
        </section>
      </div>
    </div>
  );
}

function InboxRowView({ row, current }: { row: InboxRow; current: boolean }) {
  const { t } = useI18n();
  return (
    <li className={`inbox-row${current ? ' current' : ''}`} data-conversation={row.conversation_id}>
      <a
        className="inbox-row-link"
        href={routeHref({ name: 'inbox', id: row.conversation_id })}
        aria-current={current ? 'true' : undefined}
      >
        <span className="inbox-row-head">
          <strong className="inbox-reason">{row.handoff?.reason || t('inbox.noReason')}</strong>
          {row.unread_count > 0 ? (
            <span className="badge badge-unread" title={t('inbox.unreadHelp')}>
              {t('inbox.unread', { count: row.unread_count })}
            </span>
          ) : null}
        </span>
        {row.handoff?.summary ? <span className="inbox-summary">{row.handoff.summary}</span> : null}
        {row.last_message ? <span className="inbox-last muted">“{row.last_message}”</span> : null}
        <span className="inbox-row-foot muted">
          <WaitingLabel since={row.since} held={row.mode === 'human'} />
          {row.mode === 'human' && row.assigned_name ? (
            <span>{t('inbox.heldBy', { name: row.assigned_name })}</span>
          ) : null}
        </span>
      </a>
    </li>
  );
}
