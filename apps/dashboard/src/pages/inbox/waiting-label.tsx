import { useEffect, useState } from 'react';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { formatWaiting } from './inbox-state.ts';

/** How long a conversation has waited (or been held): a label that ticks every second while shown. */
export function WaitingLabel({ since, held }: { since: number; held: boolean }) {
  const { t } = useI18n();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const { value, unit, rest } = formatWaiting(now - since);
  const duration = rest ? t('inbox.duration.hmin', { h: value, min: rest }) : t(`inbox.duration.${unit}`, { n: value });
  return (
    <span className="waiting-label" title={new Date(since).toLocaleString()}>
      {held ? t('inbox.heldFor', { duration }) : t('inbox.waitingFor', { duration })}
    </span>
  );
}
