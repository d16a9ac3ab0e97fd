import type { AgentConfigDocument } from '@agentry/contract';
import { ChipPalette } from '../../components/chip-palette.tsx';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { KeyValueEditor } from '../../components/key-value-editor.tsx';
import { TemplateInput } from '../../components/template-input.tsx';
import { NumberField, SelectField } from '../../components/text-field.tsx';
import { placeholderChoices } from '../../config/placeholders.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/** The HTTP request a tool sends: method, URL, headers, query and body, with placeholder chips. */
export function EndpointEditor({ config, index, edit }: { config: AgentConfigDocument; index: number; edit: Edit }) {
  const { t } = useI18n();
  const endpoint = config.tools?.[index]?.endpoint ?? { url: '' };
  const base = `/tools/${index}/endpoint`;
  const choices = placeholderChoices(config, index);
  const set = (key: string, value: unknown) => edit(['tools', index, 'endpoint', key], value);
  const method = endpoint.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const body = endpoint.body;
  return (
    <fieldset className="endpoint-editor">
      <legend>{t('endpoint.title')}</legend>
      <PointerIssues pointer={base} />
      <ChipPalette choices={choices} />
      <div className="endpoint-line">
        <SelectField
          pointer={`${base}/method`}
          label={t('endpoint.method')}
          value={method}
          options={METHODS.map((m) => ({ value: m, label: m }))}
          onChange={(v) => set('method', v)}
        />
        <Field pointer={`${base}/url`} label={t('endpoint.url')} className="grow">
          {(control) => (
            <TemplateInput
              {...control}
              value={endpoint.url ?? ''}
              choices={choices}
              placeholder="https://api.example.com/contacts"
              onChange={(v) => set('url', v)}
            />
          )}
        </Field>
        <NumberField
          pointer={`${base}/timeout`}
          label={t('endpoint.timeout')}
          value={endpoint.timeout}
          min={0.1}
          max={120}
          onChange={(v) => set('timeout', v)}
        />
      </div>
      <KeyValueEditor
        pointer={`${base}/headers`}
        label={t('endpoint.headers')}
        keyPlaceholder="Content-Type"
        value={endpoint.headers}
        choices={choices}
        onChange={(v) => set('headers', v)}
      />
      <KeyValueEditor
        pointer={`${base}/query_params`}
        label={t('endpoint.query')}
        value={endpoint.query_params}
        choices={choices}
        onChange={(v) => set('query_params', v)}
      />
      {hasBody || body !== undefined ? (
        Array.isArray(body) ? (
          <p className="help">{t('endpoint.arrayBody')}</p>
        ) : (
          <KeyValueEditor
            pointer={`${base}/body`}
            label={t('endpoint.body')}
            value={body}
            choices={choices}
            onChange={(v) => set('body', v)}
          />
        )
      ) : null}
    </fieldset>
  );
}
