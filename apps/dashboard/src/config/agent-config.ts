/**
 * Editor helpers around the agent config. The config's types come from `@agentry/contract`
 * (inferred from configs/agent-config.schema.json); the API's loader is the judge of validity.
 */
import type { ActionBook, AgentConfigDocument, ToolConfig } from '@agentry/contract';

/**
 * What `api/agents-api.ts` sends as a new version: the editor's document (the loader fills in the
 * lists). Only that file imports it from here; everything else imports the types from @agentry/contract.
 */
export type { AgentConfigDocument as AgentConfig } from '@agentry/contract';

/** A node of the parameter builder's schema: loose, because the builder holds half-made rows too. */
export interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
  items?: JsonSchemaNode;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  [key: string]: unknown;
}

export function blankConfig(): AgentConfigDocument {
  return {
    basic_settings: { name: '', description: '', background: '', language: 'English', tone: '' },
    action_books: [],
    tools: [],
  };
}

export function blankTool(index: number): ToolConfig {
  return {
    name: `tool_${index + 1}`,
    description: '',
    parameters: { type: 'object', properties: {}, required: [] },
    endpoint: { url: 'https://', method: 'POST', headers: { 'Content-Type': 'application/json' } },
  };
}

export function blankActionBook(): ActionBook {
  return { condition: '', action: '', tools: [] };
}
