import type { AgentConfigDocument } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

/** The agent's `handoff` block (issue 21): the model's handoff tool, the visitor's button, the messages. */
export function HandoffForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const handoff = config.handoff ?? {};
  const flag = (key: 'enabled' | 'visitor_button', label: string) => (
    <Field pointer={`/handoff/${key}`} label={label} className="field-checkbox">
      {(control) => (
        <input
          {...control}
          type="checkbox"
          checked={handoff[key] === true}
          onChange={(e) => edit(['handoff', key], e.target.checked ? true : undefined)}
        />
      )}
    </Field>
  );
  return (
    <section className="card" aria-labelledby="handoff-title">
      <h2 id="handoff-title">{t('handoff.title')}</h2>
      <p className="muted">{t('handoff.help')}</p>
      <div className="grid-2">
        {flag('enabled', t('handoff.enabled'))}
        {flag('visitor_button', t('handoff.visitorButton'))}
      </div>
      <TextField
        pointer="/handoff/waiting_message"
        label={t('handoff.waitingMessage')}
        value={handoff.waiting_message}
        placeholder={t('handoff.waitingDefault')}
        multiline
        onChange={(v) => edit(['handoff', 'waiting_message'], v || undefined)}
      />
      <TextField
        pointer="/handoff/unavailable_message"
        label={t('handoff.unavailableMessage')}
        value={handoff.unavailable_message}
        placeholder={t('handoff.unavailableDefault')}
        multiline
        onChange={(v) => edit(['handoff', 'unavailable_message'], v || undefined)}
      />
      <SelectField
        pointer="/handoff/when_unavailable"
        label={t('handoff.whenUnavailable')}
        value={handoff.when_unavailable ?? 'continue'}
        options={[
          { value: 'continue', label: t('handoff.continue') },
          { value: 'collect_contact', label: t('handoff.collectContact') },
        ]}
        onChange={(v) => edit(['handoff', 'when_unavailable'], v === 'continue' ? undefined : v)}
      />
    </section>
  );
}
