import type { AgentConfigDocument } from '@agentry/contract';

/**
 * Hands a config from the create dialog (blank, template or dropped file) to the editor of a new
 * agent. In memory only: a reload of #/agents/new starts blank, which is what a user expects.
 */
let pending: AgentConfigDocument | undefined;

export function setPendingDraft(config: AgentConfigDocument): void {
  pending = structuredClone(config);
}

export function takePendingDraft(): AgentConfigDocument | undefined {
  const config = pending;
  pending = undefined;
  return config;
}
