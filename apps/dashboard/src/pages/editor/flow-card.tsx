import type { AgentConfigDocument, FlowConfig } from '@agentry/contract';
import { useState } from 'react';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';
import { FlowGraph } from './flow-graph.tsx';
import { FlowSlotsEditor } from './flow-slots-editor.tsx';
import { FlowStepsEditor } from './flow-steps-editor.tsx';
import { FlowTriggersEditor } from './flow-triggers-editor.tsx';

interface FlowCardProps {
  config: AgentConfigDocument;
  flow: FlowConfig;
  index: number;
  edit: Edit;
}

/** One flow: what it is, what starts it, the values it collects, its steps and their graph. */
export function FlowCard({ config, flow, index, edit }: FlowCardProps) {
  const { t } = useI18n();
  const base = `/flows/${index}`;
  const issues = useIssueCount(base);
  const [open, setOpen] = useState(true);
  const set = (key: string, value: unknown) => edit(['flows', index, key], value);
  return (
    <section
      className={`card flow-card${issues ? ' card-invalid' : ''}`}
      aria-label={t('flows.card', { name: flow.name || String(index + 1) })}
    >
      <header className="card-header">
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> <strong>{flow.name || t('flows.unnamed')}</strong>
          {issues ? <span className="badge badge-error">{issues}</span> : null}
        </button>
        <button type="button" className="secondary small" onClick={() => edit(['flows', index], undefined)}>
          {t('common.remove')}
        </button>
      </header>
      {open ? (
        <>
          <PointerIssues pointer={base} />
          <div className="grid-2">
            <TextField
              pointer={`${base}/name`}
              label={t('flows.name')}
              help={t('flows.nameHelp')}
              value={flow.name}
              onChange={(v) => set('name', v)}
            />
            <TextField
              pointer={`${base}/description`}
              label={t('flows.description')}
              help={t('flows.descriptionHelp')}
              value={flow.description}
              onChange={(v) => set('description', v)}
            />
          </div>
          <FlowTriggersEditor
            pointer={`${base}/triggers/patterns`}
            patterns={flow.triggers?.patterns ?? []}
            onChange={(patterns) => set('triggers', { ...flow.triggers, patterns })}
          />
          <FlowSlotsEditor pointer={`${base}/slots`} slots={flow.slots ?? {}} onChange={(v) => set('slots', v)} />
          <FlowStepsEditor config={config} flow={flow} pointer={`${base}/steps`} onChange={(v) => set('steps', v)} />
          <FlowGraph steps={flow.steps} />
          <TextField
            pointer={`${base}/failure_message`}
            label={t('flows.failureMessage')}
            help={t('flows.failureMessageHelp')}
            value={flow.failure_message}
            onChange={(v) => set('failure_message', v || undefined)}
          />
        </>
      ) : null}
    </section>
  );
}
