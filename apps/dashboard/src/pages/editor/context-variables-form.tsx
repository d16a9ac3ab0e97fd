import type { AgentConfigDocument } from '@agentry/contract';
import { PointerIssues } from '../../components/issue-list.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

/** Variables the embedding application passes with each conversation (beyond the system ones). */
export function ContextVariablesForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const vars = config.context ?? [];
  return (
    <section className="card">
      <h2>{t('context.title')}</h2>
      <p className="help">{t('context.help')}</p>
      <PointerIssues pointer="/context" />
      {vars.map((v, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
        <div key={i} className="row-card">
          <div className="grid-3">
            <TextField
              pointer={`/context/${i}/name`}
              label={t('context.name')}
              value={v.name}
              onChange={(x) => edit(['context', i, 'name'], x)}
            />
            <SelectField
              pointer={`/context/${i}/type`}
              label={t('param.type')}
              value={v.type ?? 'string'}
              options={(['string', 'number', 'integer', 'boolean'] as const).map((x) => ({
                value: x,
                label: t(`param.typeName.${x}`),
              }))}
              onChange={(x) => edit(['context', i, 'type'], x)}
            />
            <TextField
              pointer={`/context/${i}/description`}
              label={t('param.description')}
              value={v.description}
              onChange={(x) => edit(['context', i, 'description'], x || undefined)}
            />
          </div>
          <div className="inline">
            <label>
              <input
                type="checkbox"
                checked={v.required ?? false}
                onChange={(e) => edit(['context', i, 'required'], e.target.checked || undefined)}
              />{' '}
              {t('param.required')}
            </label>
            <label>
              <input
                type="checkbox"
                checked={v.visible_to_model ?? false}
                onChange={(e) => edit(['context', i, 'visible_to_model'], e.target.checked || undefined)}
              />{' '}
              {t('context.visible')}
            </label>
            <button type="button" className="secondary small" onClick={() => edit(['context', i], undefined)}>
              {t('common.remove')}
            </button>
          </div>
          <PointerIssues pointer={`/context/${i}`} />
        </div>
      ))}
      <button
        type="button"
        className="secondary small"
        onClick={() => edit(['context', vars.length], { name: '', type: 'string' })}
      >
        + {t('context.add')}
      </button>
    </section>
  );
}
