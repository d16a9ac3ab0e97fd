import type { AgentConfigDocument } from '@agentry/contract';
import { NumberField, SelectField, TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { ContextVariablesForm } from './context-variables-form.tsx';
import type { Edit } from './edit.ts';
import { HandoffForm } from './handoff-form.tsx';
import { KnowledgeForm } from './knowledge-form.tsx';
import { ModelNameField } from './model-name-field.tsx';

/** Who the agent is, which model it uses, its limits and the knowledge it answers from. */
export function BasicSettingsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const basic = config.basic_settings ?? { name: '' };
  const text = (key: keyof AgentConfigDocument['basic_settings'], multiline = false) => (
    <TextField
      pointer={`/basic_settings/${key}`}
      label={t(`basic.${key}`)}
      value={basic[key]}
      multiline={multiline}
      onChange={(v) => edit(['basic_settings', key], v === '' && key !== 'name' ? undefined : v)}
    />
  );
  return (
    <div className="stack">
      <section className="card">
        <h2>{t('basic.title')}</h2>
        <div className="grid-2">
          {text('name')}
          {text('chatbot_id')}
          {text('language')}
          {text('tone')}
        </div>
        {text('description', true)}
        {text('background', true)}
        {text('instructions', true)}
      </section>
      <section className="card">
        <h2>{t('model.title')}</h2>
        <div className="grid-2">
          <SelectField
            pointer="/model/provider"
            label={t('model.provider')}
            value={config.model?.provider ?? ''}
            options={[
              { value: '', label: t('model.platformDefault') },
              { value: 'openai', label: 'OpenAI' },
              { value: 'anthropic', label: 'Anthropic' },
              { value: 'openai_compatible', label: t('model.compatible') },
            ]}
            onChange={(v) => edit(['model', 'provider'], v || undefined)}
          />
          <ModelNameField
            provider={config.model?.provider}
            value={config.model?.name}
            onChange={(v) => edit(['model', 'name'], v || undefined)}
          />
          <NumberField
            pointer="/model/temperature"
            label={t('model.temperature')}
            value={config.model?.temperature}
            min={0}
            max={2}
            step={0.1}
            onChange={(v) => edit(['model', 'temperature'], v)}
          />
          <NumberField
            pointer="/limits/max_steps"
            label={t('limits.max_steps')}
            value={config.limits?.max_steps}
            min={1}
            max={100}
            step={1}
            onChange={(v) => edit(['limits', 'max_steps'], v)}
          />
        </div>
      </section>
      <KnowledgeForm config={config} edit={edit} />
      <ContextVariablesForm config={config} edit={edit} />
      <HandoffForm config={config} edit={edit} />
    </div>
  );
}
