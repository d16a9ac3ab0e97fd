import type { ConversationDetail, Message, Run } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { conversationsApi } from '../../api/conversations-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { JsonBlock } from '../../components/json-block.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { TakeOverButton } from '../inbox/take-over-button.tsx';
import { RunTrace } from '../playground/run-trace.tsx';
import { SaveAsTestButton } from '../tests/save-as-test-button.tsx';
import { downloadJson } from './download-json.ts';

/** One conversation's messages in order, each run's trace on demand, and a JSON export. */
export function TranscriptPage({ id }: { id: string }) {
  const { t } = useI18n();
  const [conversation, setConversation] = useState<ConversationDetail>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    conversationsApi.get(id).then(setConversation).catch(setError);
  }, [id]);
  const runIds = new Set<string>();
  return (
    <div className="stack">
      <header className="page-header">
        <div>
          <h1>{t('transcript.title')}</h1>
          <p className="muted">
            <code>{id}</code>{' '}
            {conversation ? (
              <a href={routeHref({ name: 'agent', id: conversation.agent_id, tab: 'settings' })}>
                {t('transcript.openAgent')}
              </a>
            ) : null}
          </p>
        </div>
        <div className="inline">
          {conversation ? <TakeOverButton id={id} mode={conversation.handoff?.mode ?? conversation.mode} /> : null}
          {conversation ? (
            <SaveAsTestButton
              conversationId={id}
              disabled={!conversation.messages.some((m) => m.role === 'user' && !m.author)}
            />
          ) : null}
          <button
            type="button"
            className="secondary"
            id="export-json"
            disabled={!conversation}
            onClick={() => conversation && downloadJson(`conversation-${id}.json`, conversation)}
          >
            {t('transcript.export')}
          </button>
        </div>
      </header>
      <ErrorBanner error={error} />
      {conversation === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {conversation?.messages.length === 0 ? <p className="empty">{t('transcript.empty')}</p> : null}
      <ol className="chat transcript">
        {conversation?.messages.map((m, index) => {
          const next = conversation.messages[index + 1];
          // The trace button closes a run: after its last message.
          const lastOfRun = m.run_id && next?.run_id !== m.run_id && !runIds.has(m.run_id);
          if (lastOfRun && m.run_id) runIds.add(m.run_id);
          return (
            <li key={m.id}>
              <MessageView message={m} />
              {lastOfRun && m.run_id ? <RunTraceLoader runId={m.run_id} /> : null}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

function MessageView({ message }: { message: Message }) {
  const { t } = useI18n();
  return (
    <div className={`message message-${message.role}`}>
      <span className="role">{t(`role.${message.role}`)}</span>
      {message.content.map((part, i) => {
        const key = `${message.id}:${i}`;
        if (part.type === 'text')
          return (
            <p key={key} className={`bubble bubble-${message.role === 'user' ? 'user' : 'assistant'}`}>
              {part.text}
            </p>
          );
        if (part.type === 'reasoning')
          return (
            <p key={key} className="muted reasoning">
              {part.text}
            </p>
          );
        if (part.type === 'tool_call')
          return (
            <div key={key} className="tool-call">
              <p className="tool-call-head">
                <span className="chip chip-parameter">{part.name}</span>
              </p>
              <JsonBlock value={part.arguments} label={t('trace.arguments')} />
            </div>
          );
        return (
          <div key={key} className={`tool-call${part.is_error ? ' tool-call-error' : ''}`}>
            <p className="tool-call-head">
              <span className="muted">{t('trace.result')}</span> <code>{part.name}</code>
              {part.is_error ? <span className="badge badge-error">{t('trace.error')}</span> : null}
            </p>
            <JsonBlock value={part.output} label={t('trace.result')} />
          </div>
        );
      })}
    </div>
  );
}

function RunTraceLoader({ runId }: { runId: string }) {
  const { t } = useI18n();
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState(false);
  const toggle = () => {
    setOpen(!open);
    if (!run) conversationsApi.run(runId).then(setRun).catch(setError);
  };
  return (
    <div className="run-trace-loader">
      <button type="button" className="link" aria-expanded={open} onClick={toggle}>
        {open ? t('transcript.hideTrace') : t('transcript.showTrace')}
      </button>
      {open ? (
        <>
          <ErrorBanner error={error} />
          {run ? <RunTrace run={run} /> : error ? null : <p role="status">{t('common.loading')}</p>}
        </>
      ) : null}
    </div>
  );
}
