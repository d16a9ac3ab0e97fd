import type { Availability, BusinessHoursBody } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { inboxApi } from '../../api/inbox-api.ts';
import { currentRole } from '../../auth/session-store.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { type Interval, intervalIssues, timeZones } from './business-hours.ts';

const DAYS = [0, 1, 2, 3, 4, 5, 6] as const;

/** Handoff settings of the tenant (issue 21): business hours in a time zone, and who is available. */
export function HandoffPanel() {
  return (
    <div className="stack">
      <BusinessHoursForm />
      <MembersAvailability />
    </div>
  );
}

function BusinessHoursForm() {
  const { t } = useI18n();
  const [enabled, setEnabled] = useState(false);
  const [zone, setZone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [intervals, setIntervals] = useState<Interval[]>([]);
  const [saved, setSaved] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const load = useAction();
  const save = useAction();
  const readOnly = currentRole() === 'viewer';
  useEffect(() => {
    void load.run(async () => {
      const hours = await inboxApi.businessHours();
      setEnabled(hours.time_zone !== null);
      if (hours.time_zone) setZone(hours.time_zone);
      setIntervals(hours.intervals);
      setLoaded(true);
    });
  }, [load.run]);
  const issues = enabled ? intervalIssues(intervals) : [];
  const update = (index: number, change: Partial<Interval>) =>
    setIntervals(intervals.map((it, i) => (i === index ? { ...it, ...change } : it)));
  const submit = () =>
    save.run(async () => {
      setSaved(false);
      const body: BusinessHoursBody = enabled ? { time_zone: zone, intervals } : { time_zone: null, intervals: [] };
      await inboxApi.setBusinessHours(body);
      setSaved(true);
    });
  return (
    <section className="card" id="hours-form" data-loaded={loaded} aria-labelledby="business-hours-title">
      <h2 id="business-hours-title">{t('hours.title')}</h2>
      <p className="muted">{t('hours.help')}</p>
      <ErrorBanner error={load.error} />
      <label>
        <input
          type="checkbox"
          id="hours-enabled"
          checked={enabled}
          disabled={readOnly || !loaded}
          onChange={(e) => setEnabled(e.target.checked)}
        />{' '}
        {t('hours.enabled')}
      </label>
      {enabled ? (
        <>
          <label className="field hours-zone">
            <span>{t('hours.timeZone')}</span>
            <select id="hours-zone" value={zone} disabled={readOnly} onChange={(e) => setZone(e.target.value)}>
              {timeZones(zone).map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          </label>
          <table className="hours-table">
            <thead>
              <tr>
                <th>{t('hours.day')}</th>
                <th>{t('hours.start')}</th>
                <th>{t('hours.end')}</th>
                <th>
                  <span className="sr-only">{t('common.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {intervals.map((it, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
                <tr key={i}>
                  <td>
                    <select
                      aria-label={t('hours.day')}
                      value={it.day}
                      disabled={readOnly}
                      onChange={(e) => update(i, { day: Number(e.target.value) })}
                    >
                      {DAYS.map((d) => (
                        <option key={d} value={d}>
                          {t(`hours.day.${d}`)}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <input
                      type="time"
                      aria-label={t('hours.start')}
                      value={it.start}
                      disabled={readOnly}
                      onChange={(e) => update(i, { start: e.target.value })}
                    />
                  </td>
                  <td>
                    <input
                      type="time"
                      aria-label={t('hours.end')}
                      value={it.end === '24:00' ? '23:59' : it.end}
                      disabled={readOnly}
                      onChange={(e) => update(i, { end: e.target.value })}
                    />
                  </td>
                  <td>
                    {readOnly ? null : (
                      <button
                        type="button"
                        className="secondary small"
                        onClick={() => setIntervals(intervals.filter((_, j) => j !== i))}
                      >
                        {t('common.remove')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {intervals.length === 0 ? <p className="muted">{t('hours.none')}</p> : null}
          {readOnly ? null : (
            <button
              type="button"
              className="secondary small"
              id="hours-add"
              onClick={() => setIntervals([...intervals, { day: 1, start: '09:00', end: '17:00' }])}
            >
              {t('hours.add')}
            </button>
          )}
          {issues.length > 0 ? (
            <ul className="issues" role="alert">
              {issues.map((issue) => (
                <li key={issue}>{t('hours.invalid', { row: issue })}</li>
              ))}
            </ul>
          ) : null}
        </>
      ) : (
        <p className="muted">{t('hours.alwaysOpen')}</p>
      )}
      <ErrorBanner error={save.error} />
      {readOnly ? null : (
        <p className="inline">
          <button type="button" id="hours-save" disabled={save.busy || issues.length > 0} onClick={() => void submit()}>
            {t('hours.save')}
          </button>
          {saved ? <span role="status">{t('hours.saved')}</span> : null}
        </p>
      )}
    </section>
  );
}

function MembersAvailability() {
  const { t } = useI18n();
  const [availability, setAvailability] = useState<Availability>();
  const action = useAction();
  useEffect(() => {
    void action.run(async () => setAvailability(await inboxApi.availability()));
  }, [action.run]);
  return (
    <section className="card" aria-labelledby="availability-title">
      <h2 id="availability-title">{t('availability.title')}</h2>
      <ErrorBanner error={action.error} />
      {availability ? (
        <>
          <p id="available-now" className={availability.available_now ? 'ok' : 'muted'}>
            {availability.available_now ? t('availability.now') : t('availability.nobody')}
          </p>
          <ul>
            {availability.members.map((m) => (
              <li key={m.user_id}>
                {m.name} <span className="muted">({t(`role.${m.role}`)})</span>{' '}
                <span className={`badge ${m.available ? 'badge-ok' : ''}`}>
                  {m.available ? t('inbox.available') : t('inbox.away')}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
