import { RUN_STATUSES } from '@agentry/contract';
import type { Agent } from '@agentry/contract/schemas';
import { type FormEvent, useState } from 'react';
import { AgentSelect } from '../../components/agent-select.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { ConversationFilter } from '../../router/routes.ts';

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
        <LabelledField id="filter-q" label={t('conversations.search')} className="grow">
          {(control) => (
            <div className="inline">
              <input
                {...control}
                type="search"
                value={q}
                placeholder={t('conversations.searchPlaceholder')}
                onChange={(e) => setQ(e.target.value)}
              />
              <button type="submit" id="filter-search">
                {t('conversations.searchButton')}
              </button>
            </div>
          )}
        </LabelledField>
        <LabelledField id="conversations-agent" label={t('conversations.agent')}>
          {(control) => (
            <AgentSelect
              {...control}
              agents={agents}
              value={filter.agentId}
              all
              onChange={(agentId) => set({ agentId })}
            />
          )}
        </LabelledField>
      </div>
      <div className="filters-row">
        {(['from', 'to'] as const).map((end) => (
          <LabelledField key={end} id={`filter-${end}`} label={t(`conversations.${end}`)}>
            {(control) => (
              <input
                {...control}
                type="date"
                value={filter[end] ?? ''}
                // The range cannot be turned around: from is at most to, to at least from.
                {...(end === 'from' ? { max: filter.to } : { min: filter.from })}
                onChange={(e) => set({ [end]: e.target.value || undefined })}
              />
            )}
          </LabelledField>
        ))}
        <LabelledField id="filter-status" label={t('conversations.status')}>
          {(control) => (
            <select
              {...control}
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
          )}
        </LabelledField>
        <LabelledField id="filter-error" label={t('conversations.hasError')}>
          {(control) => (
            <select
              {...control}
              value={filter.hasError === undefined ? '' : String(filter.hasError)}
              onChange={(e) => set({ hasError: e.target.value === '' ? undefined : e.target.value === 'true' })}
            >
              <option value="">{t('conversations.errorAny')}</option>
              <option value="true">{t('conversations.errorYes')}</option>
              <option value="false">{t('conversations.errorNo')}</option>
            </select>
          )}
        </LabelledField>
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
