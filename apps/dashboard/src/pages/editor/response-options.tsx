import type { ToolConfig } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { ListInput } from '../../components/list-input.tsx';
import { NumberField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

/** What the model sees of a response: a size cap, a field whitelist and how long it stays visible. */
export function ResponseOptions({ index, tool, edit }: { index: number; tool: ToolConfig; edit: Edit }) {
  const { t } = useI18n();
  const base = `/tools/${index}/response`;
  const response = tool.response ?? {};
  // Empty response blocks are dropped so the config stays minimal.
  const set = (key: string, value: unknown) => {
    const next: Record<string, unknown> = { ...response, [key]: value };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    edit(['tools', index, 'response'], Object.keys(next).length === 0 ? undefined : next);
  };
  return (
    <fieldset className="response-options">
      <legend>{t('response.title')}</legend>
      <Field pointer={`${base}/fields`} label={t('response.fields')} help={t('response.fieldsHelp')}>
        {(control) => (
          <ListInput
            {...control}
            value={response.fields}
            placeholder="status, order.expected_delivery"
            onChange={(v) => set('fields', v)}
          />
        )}
      </Field>
      <div className="grid-2">
        <NumberField
          pointer={`${base}/max_bytes`}
          label={t('response.maxBytes')}
          value={response.max_bytes}
          min={64}
          step={1}
          onChange={(v) => set('max_bytes', v)}
        />
        <NumberField
          pointer={`${base}/ephemeral`}
          label={t('response.ephemeral')}
          help={t('response.ephemeralHelp')}
          value={response.ephemeral}
          min={1}
          step={1}
          onChange={(v) => set('ephemeral', v)}
        />
      </div>
    </fieldset>
  );
}
