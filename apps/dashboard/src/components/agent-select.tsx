import type { Agent } from '@agentry/contract/schemas';
import { useI18n } from '../i18n/i18n-context.tsx';
import type { LabelledControl } from './labelled-field.tsx';

interface AgentSelectProps extends Partial<LabelledControl> {
  id: string;
  agents: Agent[];
  /** The agent's id; undefined or '' is "all agents". */
  value: string | undefined;
  onChange: (agentId: string | undefined) => void;
  /** Offer "All agents" (the empty value) first. */
  all?: boolean;
}

/**
 * A choice of one of the tenant's agents, by name.
 *
 * @example
 * <AgentSelect id="usage-agent" agents={agents} value={agentId} all onChange={(agentId) => go({ agentId })} />
 */
export function AgentSelect({ agents, value, onChange, all, ...control }: AgentSelectProps) {
  const { t } = useI18n();
  return (
    <select {...control} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
      {all ? <option value="">{t('conversations.allAgents')}</option> : null}
      {agents.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name}
        </option>
      ))}
    </select>
  );
}
