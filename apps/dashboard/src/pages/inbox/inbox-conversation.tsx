import type { ConversationDetail, ConversationEvent, Message } from '@agentry/contract/schemas';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { conversationsApi } from '../../api/conversations-api.ts';
import { inboxApi } from '../../api/inbox-api.ts';
import { followLiveStream, type LiveEvent } from '../../api/live-stream.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { messageText, type TimelineEntry, timeline } from './inbox-state.ts';
import { useCanAct, useMe } from './use-member.ts';

type Mode = ConversationDetail['mode'];

/**
 * One conversation as people handle it: the model's summary, the transcript with internal notes,
 * live (its stream: visitor messages as they arrive), and Claim, Reply, Note, Release, Resolve.
 */
export function InboxConversation({ id }: { id: string }) {
  const { t } = useI18n();
  const me = useMe();
  const canAct = useCanAct();
  const [detail, setDetail] = useState<ConversationDetail>();
  const [events, setEvents] = useState<ConversationEvent[]>([]);
  const [error, setError] = useState<unknown>();
  const action = useAction();
  const reload = useCallback(() => {
    conversationsApi.get(id).then(setDetail).catch(setError);
    inboxApi
      .history(id)
      .then((h) => setEvents(h.data))
      .catch(setError);
  }, [id]);
  useEffect(() => {
    const stop = new AbortController();
    const onEvent = (event: LiveEvent) => {
      if (event.type === 'visitor-message' || event.type === 'human-message') {
        const message = event.message as Message;
        setDetail((d) =>
          d && !d.messages.some((m) => m.id === message.id)
            ? { ...d, messages: [...d.messages, { ...message, author: message.author ?? null }] }
            : d,
        );
      }
      if (event.type === 'mode') {
        // The model answers again (or people took it): read the transcript and the history afresh.
        reload();
      } else if (event.type === 'note') {
        inboxApi
          .history(id)
          .then((h) => setEvents(h.data))
          .catch(() => {});
      }
    };
    // Each (re)open reads the state first; the stream then carries what changes.
    followLiveStream(
      `/v1/conversations/${encodeURIComponent(id)}/events`,
      { onOpen: reload, onEvent },
      stop.signal,
    ).catch(setError);
    return () => stop.abort();
  }, [id, reload]);
  if (error && !detail) return <ErrorBanner error={error} />;
  if (!detail) return <p role="status">{t('common.loading')}</p>;
  const handoff = detail.handoff;
  const mode: Mode = handoff?.mode ?? detail.mode;
  const mine = mode === 'human' && handoff?.assigned_to === me;
  const entries = timeline(detail.messages, events);
  const act = (fn: () => Promise<unknown>) =>
    action.run(async () => {
      await fn();
      reload();
    });
  return (
    <div className="stack inbox-conversation" data-mode={mode}>
      <header className="page-header">
        <div>
          <h2>
            {t('inbox.conversation')}{' '}
            <span className={`badge mode-${mode}`} id="conversation-mode">
              {t(`inbox.mode.${mode}`)}
            </span>
          </h2>
          <p className="muted">
            <a href={routeHref({ name: 'conversation', id })}>
              <code>{id}</code>
            </a>
          </p>
        </div>
        {canAct ? (
          <div className="inline">
            {mode !== 'human' || !mine ? (
              <button
                type="button"
                id="claim"
                disabled={action.busy}
                onClick={() => void act(() => inboxApi.claim(id))}
              >
                {mode === 'bot' || mode === 'resolved' ? t('inbox.takeOver') : t('inbox.claim')}
              </button>
            ) : null}
            {mode !== 'resolved' ? (
              <button
                type="button"
                className="secondary"
                id="resolve"
                disabled={action.busy}
                onClick={() => void act(() => inboxApi.resolve(id))}
              >
                {t('inbox.resolve')}
              </button>
            ) : null}
          </div>
        ) : null}
      </header>
      <ErrorBanner error={action.error} />
      {handoff?.handoff ? (
        <section className="card handoff-summary" id="handoff-summary">
          <p className="handoff-summary-line">
            <strong>{t('inbox.reason')}</strong> {handoff.handoff.reason}{' '}
            <span className="muted">({t(`inbox.source.${handoff.handoff.source}`)})</span>
          </p>
          {handoff.handoff.summary ? (
            <p className="handoff-summary-line">
              <strong>{t('inbox.summary')}</strong> {handoff.handoff.summary}
            </p>
          ) : null}
        </section>
      ) : null}
      <ol className="chat transcript" id="inbox-transcript">
        {entries.map((entry) => (
          <li key={entry.id}>
            <Entry entry={entry} />
          </li>
        ))}
      </ol>
      {canAct && mine ? <ReplyBox id={id} onSent={reload} /> : null}
      {canAct && mode === 'pending_human' ? <p className="muted">{t('inbox.claimToReply')}</p> : null}
      {canAct ? <NoteBox id={id} /> : null}
      {canAct && (mode === 'human' || mode === 'pending_human') ? (
        <ReleaseBox onRelease={(note) => act(() => inboxApi.release(id, note))} busy={action.busy} />
      ) : null}
    </div>
  );
}

function Entry({ entry }: { entry: TimelineEntry }) {
  const { t } = useI18n();
  if (entry.kind === 'note')
    return (
      <div className="internal-note" data-kind="note">
        <span className="role">{t('inbox.noteBy', { name: entry.by ?? t('inbox.someone') })}</span>
        <p className="internal-note-text">{entry.text}</p>
      </div>
    );
  if (entry.kind === 'mode')
    return (
      <p className="mode-change muted">
        {t('inbox.modeChanged', {
          mode: t(`inbox.mode.${entry.to as Mode}`),
          name: entry.by ?? t(`inbox.actor.${entry.actor as ConversationEvent['actor']['type']}`),
        })}
        {entry.note ? ` — ${entry.note}` : ''}
      </p>
    );
  const { message } = entry;
  const text = messageText(message);
  if (!text) return null;
  if (message.author?.type === 'note')
    return (
      <div className="internal-note note-for-bot" data-kind="bot-note">
        <span className="role">{t('inbox.noteForBot', { name: message.author.name })}</span>
        <p className="internal-note-text">{text}</p>
      </div>
    );
  const human = message.author?.type === 'human';
  const who = message.role === 'user' ? t('role.user') : human ? message.author?.name : t('role.assistant');
  return (
    <div
      className={`message message-${message.role}${human ? ' message-human' : ''}`}
      data-author={human ? 'human' : message.role}
    >
      <span className="role">
        {who}
        {human ? <span className="badge badge-person">{t('inbox.person')}</span> : null}
      </span>
      <p className={`bubble bubble-${message.role === 'user' ? 'user' : 'assistant'}${human ? ' bubble-human' : ''}`}>
        {text}
      </p>
    </div>
  );
}

function ReplyBox({ id, onSent }: { id: string; onSent: () => void }) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const content = text.trim();
    if (!content) return;
    void action.run(async () => {
      await inboxApi.reply(id, content);
      setText('');
      onSent();
    });
  };
  return (
    <form className="composer composer-static" onSubmit={submit}>
      <label className="sr-only" htmlFor="human-reply">
        {t('inbox.replyLabel')}
      </label>
      <textarea
        className="composer-grow"
        id="human-reply"
        rows={2}
        value={text}
        placeholder={t('inbox.replyPlaceholder')}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" id="send-reply" disabled={action.busy || !text.trim()}>
        {t('inbox.send')}
      </button>
      <ErrorBanner error={action.error} />
    </form>
  );
}

function NoteBox({ id }: { id: string }) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const content = text.trim();
    if (!content) return;
    void action.run(async () => {
      await inboxApi.note(id, content);
      setText('');
    });
  };
  return (
    <form className="composer composer-static note-composer" onSubmit={submit}>
      <label className="sr-only" htmlFor="internal-note">
        {t('inbox.noteLabel')}
      </label>
      <textarea
        className="composer-grow"
        id="internal-note"
        rows={1}
        value={text}
        placeholder={t('inbox.notePlaceholder')}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" className="secondary" id="add-note" disabled={action.busy || !text.trim()}>
        {t('inbox.addNote')}
      </button>
      <ErrorBanner error={action.error} />
    </form>
  );
}

function ReleaseBox({ onRelease, busy }: { onRelease: (note: string | undefined) => Promise<void>; busy: boolean }) {
  const { t } = useI18n();
  const [note, setNote] = useState('');
  return (
    <form
      className="composer composer-static release-composer"
      onSubmit={(e) => {
        e.preventDefault();
        void onRelease(note.trim() || undefined).then(() => setNote(''));
      }}
    >
      <label className="sr-only" htmlFor="release-note">
        {t('inbox.releaseNoteLabel')}
      </label>
      <input
        className="composer-grow"
        id="release-note"
        value={note}
        placeholder={t('inbox.releaseNotePlaceholder')}
        onChange={(e) => setNote(e.target.value)}
      />
      <button type="submit" className="secondary" id="release" disabled={busy}>
        {t('inbox.release')}
      </button>
    </form>
  );
}
