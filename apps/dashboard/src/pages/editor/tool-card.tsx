import type { AgentConfigDocument, ToolConfig } from '@agentry/contract';
import { useState } from 'react';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { TemplateTargetProvider } from '../../components/template-target.tsx';
import { NumberField, SelectField, TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';
import { EndpointEditor } from './endpoint-editor.tsx';
import { ParameterBuilder } from './parameter-builder.tsx';
import { ResponseOptions } from './response-options.tsx';
import { ToolTester } from './tool-tester.tsx';

interface ToolCardProps {
  config: AgentConfigDocument;
  tool: ToolConfig;
  index: number;
  edit: Edit;
}

/** One tool: what it is, its parameters, its HTTP request, its response shaping and a tester. */
export function ToolCard({ config, tool, index, edit }: ToolCardProps) {
  const { t } = useI18n();
  const base = `/tools/${index}`;
  const issues = useIssueCount(base);
  const [open, setOpen] = useState(true);
  const [testing, setTesting] = useState(false);
  const set = (key: string, value: unknown) => edit(['tools', index, key], value);
  const isClient = tool.type === 'client';
  return (
    <section
      className={`card tool-card${issues ? ' card-invalid' : ''}`}
      aria-label={t('tools.card', { name: tool.name || String(index + 1) })}
    >
      <header className="card-header">
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> <strong>{tool.name || t('tools.unnamed')}</strong>
          {issues ? <span className="badge badge-error">{issues}</span> : null}
        </button>
        <div className="inline">
          <button
            type="button"
            className="secondary small"
            id={`test-tool-${index}`}
            aria-pressed={testing}
            onClick={() => setTesting(!testing)}
          >
            {t('tester.open')}
          </button>
          <button type="button" className="secondary small" onClick={() => edit(['tools', index], undefined)}>
            {t('common.remove')}
          </button>
        </div>
      </header>
      {open ? (
        <TemplateTargetProvider>
          <PointerIssues pointer={base} />
          <div className="grid-2">
            <TextField
              pointer={`${base}/name`}
              label={t('tools.name')}
              value={tool.name}
              onChange={(v) => set('name', v)}
            />
            <div className="grid-2">
              <SelectField
                pointer={`${base}/type`}
                label={t('tools.type')}
                value={tool.type ?? 'http'}
                options={[
                  { value: 'http', label: t('tools.typeHttp') },
                  { value: 'client', label: t('tools.typeClient') },
                ]}
                onChange={(v) => set('type', v === 'http' ? undefined : v)}
              />
              <SelectField
                pointer={`${base}/approval`}
                label={t('tools.approval')}
                value={tool.approval ?? 'never'}
                options={[
                  { value: 'never', label: t('tools.approvalNever') },
                  { value: 'always', label: t('tools.approvalAlways') },
                ]}
                onChange={(v) => set('approval', v === 'never' ? undefined : v)}
              />
            </div>
          </div>
          <TextField
            pointer={`${base}/description`}
            label={t('tools.description')}
            help={t('tools.descriptionHelp')}
            value={tool.description}
            multiline
            onChange={(v) => set('description', v)}
          />
          {isClient ? <p className="help">{t('tools.clientHelp')}</p> : null}
          <ParameterBuilder
            pointer={`${base}/parameters`}
            value={tool.parameters}
            onChange={(v) => set('parameters', v)}
          />
          {isClient ? null : (
            <>
              <EndpointEditor config={config} index={index} edit={edit} />
              <div className="grid-2">
                <ResponseOptions index={index} tool={tool} edit={edit} />
                <div>
                  <NumberField
                    pointer={`${base}/retries`}
                    label={t('tools.retries')}
                    help={t('tools.retriesHelp')}
                    value={tool.retries}
                    min={0}
                    max={3}
                    step={1}
                    onChange={(v) => set('retries', v)}
                  />
                  <NumberField
                    pointer={`${base}/cache`}
                    label={t('tools.cacheTtl')}
                    help={t('tools.cacheTtlHelp')}
                    value={tool.cache?.ttl}
                    min={1}
                    max={86400}
                    step={1}
                    onChange={(v) => set('cache', v === undefined ? undefined : { ttl: v })}
                  />
                  <PointerIssues pointer={`${base}/cache/ttl`} />
                </div>
              </div>
            </>
          )}
        </TemplateTargetProvider>
      ) : null}
      {testing ? <ToolTester config={config} tool={tool} /> : null}
    </section>
  );
}
