import { type FormEvent, useState } from 'react';
import { pollingTransport } from '../../api/chat-transport.ts';
import { conversationsApi } from '../../api/conversations-api.ts';
import type { Run } from '../../api/types.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { RunTrace } from './run-trace.tsx';

interface Turn {
  user: string;
  run?: Run;
  error?: unknown;
}

interface Session {
  conversationId: string;
  agentId: string;
  version: number;
}

interface PlaygroundProps {
  /** Saves the current draft as an unpublished version and says which. */
  saveDraft: () => Promise<{ agentId: string; version: number }>;
  /** The draft changed since the chat started. */
  draftKey: string;
}

/** Chat with the unsaved draft: it is saved as a draft version and a conversation is pinned to it. */
export function PlaygroundPanel({ saveDraft, draftKey }: PlaygroundProps) {
  const { t } = useI18n();
  const [session, setSession] = useState<Session & { draftKey: string }>();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const start = async (): Promise<Session | undefined> => {
    setError(undefined);
    try {
      const { agentId, version } = await saveDraft();
      const conversation = await conversationsApi.create(agentId, version);
      const next = { conversationId: conversation.id, agentId, version, draftKey };
      setSession(next);
      setTurns([]);
      return next;
    } catch (e) {
      setError(e);
      return undefined;
    }
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const content = input.trim();
    if (!content || busy) return;
    setBusy(true);
    const current = session ?? (await start());
    if (!current) {
      setBusy(false);
      return;
    }
    setInput('');
    const index = turns.length;
    setTurns((all) => [...all, { user: content }]);
    const update = (patch: Partial<Turn>) =>
      setTurns((all) => all.map((turn, i) => (i === index ? { ...turn, ...patch } : turn)));
    try {
      await pollingTransport.send(current.conversationId, content, (run) => update({ run }));
    } catch (e) {
      update({ error: e });
    } finally {
      setBusy(false);
    }
  };

  const stale = session && session.draftKey !== draftKey;
  return (
    <div className="playground">
      <div className="inline">
        <button type="button" className="secondary" id="playground-restart" disabled={busy} onClick={() => start()}>
          {session ? t('playground.restart') : t('playground.start')}
        </button>
        {session ? (
          <span className="muted" id="playground-session">
            {t('playground.session', { version: session.version })}{' '}
            <a href={routeHref({ name: 'conversation', id: session.conversationId })}>
              {t('playground.openTranscript')}
            </a>
          </span>
        ) : (
          <span className="muted">{t('playground.help')}</span>
        )}
      </div>
      {stale ? (
        <p className="banner" role="status">
          {t('playground.stale')}
        </p>
      ) : null}
      <ErrorBanner error={error} />
      <ol className="chat" aria-live="polite">
        {turns.map((turn, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are append-only
          <li key={i} className="turn">
            <p className="bubble bubble-user">{turn.user}</p>
            {turn.run ? (
              <>
                <RunTrace run={turn.run} />
                {turn.run.reply ? <p className="bubble bubble-assistant">{turn.run.reply}</p> : null}
              </>
            ) : turn.error ? null : (
              <p className="muted" role="status">
                {t('playground.thinking')}
              </p>
            )}
            <ErrorBanner error={turn.error} />
          </li>
        ))}
      </ol>
      <form className="composer" onSubmit={send}>
        <label htmlFor="playground-input" className="sr-only">
          {t('playground.message')}
        </label>
        <textarea
          id="playground-input"
          rows={2}
          value={input}
          placeholder={t('playground.placeholder')}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) send(e);
          }}
        />
        <button type="submit" id="playground-send" disabled={busy || !input.trim()}>
          {t('playground.send')}
        </button>
      </form>
    </div>
  );
}
