import { type FormEvent, useState } from 'react';
import type { Agent, RunStatus } from '../../api/types.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { ConversationFilter } from '../../router/routes.ts';

export const RUN_STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
];

interface FiltersProps {
  filter: ConversationFilter;
  agents: Agent[];
  onChange: (filter: ConversationFilter) => void;
}

/** Search and filters of the conversation list; choices apply at once, the search text on Enter. */
export function ConversationFilters({ filter, agents, onChange }: FiltersProps) {
  const { t } = useI18n();
  const [q, setQ] = useState(filter.q ?? '');
  const set = (patch: Partial<ConversationFilter>) => {
    const next: ConversationFilter = { ...filter, q: q.trim() || undefined, ...patch };
    for (const key of Object.keys(next) as Array<keyof ConversationFilter>)
      if (next[key] === undefined || next[key] === '') delete next[key];
    onChange(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    set({});
  };
  const active = Object.keys(filter).length > 0;
  return (
    <form className="filters card" onSubmit={submit} aria-label={t('conversations.filters')} id="conversation-filters">
      <div className="filters-row">
        <div className="field grow">
          <label htmlFor="filter-q">{t('conversations.search')}</label>
          <div className="inline">
            <input
              id="filter-q"
              type="search"
              value={q}
              placeholder={t('conversations.searchPlaceholder')}
              onChange={(e) => setQ(e.target.value)}
            />
            <button type="submit" id="filter-search">
              {t('conversations.searchButton')}
            </button>
          </div>
        </div>
        <div className="field">
          <label htmlFor="conversations-agent">{t('conversations.agent')}</label>
          <select
            id="conversations-agent"
            value={filter.agentId ?? ''}
            onChange={(e) => set({ agentId: e.target.value || undefined })}
          >
            <option value="">{t('conversations.allAgents')}</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="filters-row">
        <div className="field">
          <label htmlFor="filter-from">{t('conversations.from')}</label>
          <input
            id="filter-from"
            type="date"
            value={filter.from ?? ''}
            max={filter.to}
            onChange={(e) => set({ from: e.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-to">{t('conversations.to')}</label>
          <input
            id="filter-to"
            type="date"
            value={filter.to ?? ''}
            min={filter.from}
            onChange={(e) => set({ to: e.target.value || undefined })}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-status">{t('conversations.status')}</label>
          <select
            id="filter-status"
            value={filter.status ?? ''}
            onChange={(e) => set({ status: e.target.value || undefined })}
          >
            <option value="">{t('conversations.anyStatus')}</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-error">{t('conversations.hasError')}</label>
          <select
            id="filter-error"
            value={filter.hasError === undefined ? '' : String(filter.hasError)}
            onChange={(e) => set({ hasError: e.target.value === '' ? undefined : e.target.value === 'true' })}
          >
            <option value="">{t('conversations.errorAny')}</option>
            <option value="true">{t('conversations.errorYes')}</option>
            <option value="false">{t('conversations.errorNo')}</option>
          </select>
        </div>
        <div className="field filters-clear">
          <button
            type="button"
            className="secondary"
            id="filter-clear"
            disabled={!active && !q}
            onClick={() => {
              setQ('');
              onChange({});
            }}
          >
            {t('conversations.clear')}
          </button>
        </div>
      </div>
    </form>
  );
}
