import type { Run, ToolAnswer } from '@agentry/contract/schemas';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { streamMessage } from '../../api/chat-transport.ts';
import { conversationsApi } from '../../api/conversations-api.ts';
import { applyRunEvent, emptyLiveRun, type LiveRun } from '../../api/live-run.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { SaveAsTestButton } from '../tests/save-as-test-button.tsx';
import { FlowTrace } from './flow-trace.tsx';
import { CitationsView } from './knowledge-trace.tsx';
import { LiveRunView } from './live-run-view.tsx';
import { PendingCards } from './pending-card.tsx';
import { RunTrace } from './run-trace.tsx';

interface Turn {
  user: string;
  runId?: string;
  /** The run as its events stream in. */
  live?: LiveRun;
  /** The stored run once it ended: exact totals and the full trace. */
  run?: Run;
  error?: unknown;
  answerError?: unknown;
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

  const stream = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => stream.current?.abort(), []);

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
    setTurns((all) => [...all, { user: content, live: emptyLiveRun }]);
    const update = (patch: (turn: Turn) => Partial<Turn>) =>
      setTurns((all) => all.map((turn, i) => (i === index ? { ...turn, ...patch(turn) } : turn)));
    const controller = new AbortController();
    stream.current = controller;
    try {
      // Tokens, tool calls and pauses arrive as events; the stored run then gives the exact trace.
      const runId = await streamMessage(
        current.conversationId,
        content,
        {
          onRunId: (id) => update(() => ({ runId: id })),
          onEvent: (e) => update((turn) => ({ live: applyRunEvent(turn.live ?? emptyLiveRun, e) })),
        },
        controller.signal,
      );
      if (!controller.signal.aborted) {
        const run = await conversationsApi.run(runId);
        update(() => ({ run }));
      }
    } catch (e) {
      update(() => ({ error: e }));
    } finally {
      if (stream.current === controller) stream.current = undefined;
      setBusy(false);
    }
  };

  const answer = (index: number, runId: string) => async (answers: ToolAnswer[]) => {
    const patch = (p: Partial<Turn>) =>
      setTurns((all) => all.map((turn, i) => (i === index ? { ...turn, ...p } : turn)));
    patch({ answerError: undefined });
    try {
      await conversationsApi.answer(runId, answers);
    } catch (e) {
      patch({ answerError: e });
      throw e;
    }
  };

  const stop = (runId: string) => conversationsApi.cancel(runId).catch((e) => setError(e));

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
        {session ? (
          <SaveAsTestButton conversationId={session.conversationId} disabled={busy || turns.length === 0} replace />
        ) : null}
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
          <li key={i} className="turn" aria-busy={Boolean(turn.live && !turn.run && !turn.error)}>
            <p className="bubble bubble-user">{turn.user}</p>
            {turn.run ? (
              <>
                <FlowTrace events={turn.live?.flow ?? []} />
                <RunTrace run={turn.run} />
                {turn.run.reply ? <p className="bubble bubble-assistant">{turn.run.reply}</p> : null}
                {turn.run.reply ? <CitationsView citations={turn.run.citations ?? []} /> : null}
              </>
            ) : turn.live ? (
              <>
                <LiveRunView run={turn.live} />
                {turn.runId && turn.live.status === 'waiting' && turn.live.pending.length > 0 ? (
                  <PendingCards
                    // A new pause is a new set of cards.
                    key={turn.live.pending.map((p) => p.tool_call_id).join()}
                    pending={turn.live.pending}
                    onAnswer={answer(i, turn.runId)}
                  />
                ) : null}
                <ErrorBanner error={turn.answerError} />
                {turn.runId && !turn.live.final && !turn.error ? (
                  <button
                    type="button"
                    className="secondary small stop-run"
                    onClick={() => turn.runId && stop(turn.runId)}
                  >
                    {t('playground.stop')}
                  </button>
                ) : null}
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
