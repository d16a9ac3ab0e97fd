import type { ConversationDetail } from '@agentry/contract/schemas';
import { inboxApi } from '../../api/inbox-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { useCanAct } from './use-member.ts';

/**
 * On a conversation's page: take it over from the model (or claim it when it waits), then open it
 * in the inbox; a conversation people already hold links there. Hidden from viewers.
 */
export function TakeOverButton({
  id,
  mode,
  compact = false,
}: {
  id: string;
  mode: ConversationDetail['mode'];
  /** In a list: a small button, without the page-wide element id. */
  compact?: boolean;
}) {
  const { t } = useI18n();
  const canAct = useCanAct();
  const action = useAction();
  if (mode === 'human')
    return (
      <a
        className={`button secondary${compact ? ' small' : ''}`}
        {...(compact ? {} : { id: 'open-in-inbox' })}
        href={routeHref({ name: 'inbox', id })}
      >
        {t('inbox.openInInbox')}
      </a>
    );
  if (!canAct) return null;
  return (
    <>
      <button
        type="button"
        className={compact ? 'secondary small' : undefined}
        {...(compact ? { 'data-take-over': id } : { id: 'take-over' })}
        disabled={action.busy}
        onClick={() =>
          void action.run(async () => {
            await inboxApi.claim(id);
            navigate({ name: 'inbox', id });
          })
        }
      >
        {mode === 'pending_human' ? t('inbox.claim') : t('inbox.takeOver')}
      </button>
      <ErrorBanner error={action.error} />
    </>
  );
}
