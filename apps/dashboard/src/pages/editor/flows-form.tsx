import type { AgentConfigDocument, FlowConfig } from '@agentry/contract';
import { PointerIssues } from '../../components/issue-list.tsx';
import { freeStepId } from '../../config/flow-graph.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';
import { FlowCard } from './flow-card.tsx';

/** A new flow: a free name and one end step, so it is a valid procedure from the start. */
function blankFlow(flows: readonly FlowConfig[]): FlowConfig {
  const name = freeStepId(
    flows.map((f) => f.name),
    `flow_${flows.length + 1}`,
  );
  return { name, description: '', triggers: { patterns: [] }, slots: {}, steps: [{ id: 'done', type: 'end' }] };
}

/** The agent's flows: fixed procedures (a leave request, a refund) built with forms, no JSON. */
export function FlowsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const flows = config.flows ?? [];
  return (
    <div className="stack">
      <p className="help">{t('flows.intro')}</p>
      <PointerIssues pointer="/flows" />
      {flows.length === 0 ? <p className="empty">{t('flows.empty')}</p> : null}
      {flows.map((flow, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
        <FlowCard key={i} config={config} flow={flow} index={i} edit={edit} />
      ))}
      <div className="inline">
        <button type="button" id="add-flow" onClick={() => edit(['flows', flows.length], blankFlow(flows))}>
          + {t('flows.add')}
        </button>
      </div>
    </div>
  );
}
