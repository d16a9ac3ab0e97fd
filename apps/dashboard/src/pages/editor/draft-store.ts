import type { AgentConfig } from '../../config/agent-config.ts';

/**
 * Hands a config from the create dialog (blank, template or dropped file) to the editor of a new
 * agent. In memory only: a reload of #/agents/new starts blank, which is what a user expects.
 */
let pending: AgentConfig | undefined;

export function setPendingDraft(config: AgentConfig): void {
  pending = structuredClone(config);
}

export function takePendingDraft(): AgentConfig | undefined {
  const config = pending;
  pending = undefined;
  return config;
}
