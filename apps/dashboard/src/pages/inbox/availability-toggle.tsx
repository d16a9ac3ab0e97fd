import type { Availability } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { inboxApi } from '../../api/inbox-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { askDesktopPermission, readAlertPrefs, saveAlertPrefs } from './notify.ts';
import { useCanAct } from './use-member.ts';

/** My availability for handoffs: available or away (members only; a secret key has no "me"). */
export function AvailabilityToggle({ me }: { me?: string | undefined }) {
  const { t } = useI18n();
  const [availability, setAvailability] = useState<Availability>();
  const action = useAction();
  const canAct = useCanAct();
  useEffect(() => {
    if (!canAct) return;
    inboxApi
      .availability()
      .then(setAvailability)
      .catch(() => {});
  }, [canAct]);
  const mine = availability?.members.find((m) => (me ? m.user_id === me : false));
  // Viewers do not take conversations: they have no availability to set.
  if (!me || !mine || !canAct) return null;
  const toggle = () => action.run(async () => setAvailability(await inboxApi.setAvailable(!mine.available)));
  return (
    <div className="inline availability">
      <span className={`badge ${mine.available ? 'badge-ok' : ''}`} id="my-availability">
        {mine.available ? t('inbox.available') : t('inbox.away')}
      </span>
      <button
        type="button"
        className="secondary small"
        id="toggle-availability"
        disabled={action.busy}
        onClick={toggle}
      >
        {mine.available ? t('inbox.goAway') : t('inbox.goAvailable')}
      </button>
      {availability && !availability.open_now ? <span className="muted">{t('inbox.closedNow')}</span> : null}
      <ErrorBanner error={action.error} />
    </div>
  );
}

/** Sound and desktop alerts for new waiting conversations, opt-in; the permission asked on this click. */
export function AlertsToggle() {
  const { t } = useI18n();
  const [prefs, setPrefs] = useState(readAlertPrefs);
  const update = (next: typeof prefs) => {
    saveAlertPrefs(next);
    setPrefs(next);
  };
  return (
    <fieldset className="inline alerts">
      <legend className="sr-only">{t('inbox.alerts')}</legend>
      <label>
        <input
          type="checkbox"
          id="alert-sound"
          checked={prefs.sound}
          onChange={(e) => update({ ...prefs, sound: e.target.checked })}
        />{' '}
        {t('inbox.alertSound')}
      </label>
      <label>
        <input
          type="checkbox"
          id="alert-desktop"
          checked={prefs.desktop}
          onChange={(e) => {
            const on = e.target.checked;
            if (!on) update({ ...prefs, desktop: false });
            else void askDesktopPermission().then((granted) => update({ ...prefs, desktop: granted }));
          }}
        />{' '}
        {t('inbox.alertDesktop')}
      </label>
    </fieldset>
  );
}
