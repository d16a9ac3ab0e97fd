/**
 * The agent config as the editor sees it (configs/agent-config.schema.json). Loose on purpose:
 * the editor must hold invalid drafts too, and the API's loader is the judge of validity.
 */
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

export interface ParametersSchema extends JsonSchemaNode {
  type: 'object';
}

export interface EndpointConfig {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  query_params?: Record<string, string | number | boolean>;
  body?: Record<string, unknown> | unknown[];
  timeout?: number;
}

export interface ToolConfig {
  name: string;
  description: string;
  type?: 'http' | 'client';
  approval?: 'never' | 'always';
  parameters?: ParametersSchema;
  endpoint?: EndpointConfig;
  response?: { max_bytes?: number; fields?: string[]; ephemeral?: number };
  retries?: number;
  [key: string]: unknown;
}

export interface ActionBook {
  condition: string;
  action: string;
  tools?: string[];
}

export interface ContextVariable {
  name: string;
  type?: string;
  required?: boolean;
  description?: string;
  visible_to_model?: boolean;
}

export interface AgentConfig {
  basic_settings: {
    name: string;
    description?: string;
    background?: string;
    language?: string;
    tone?: string;
    chatbot_id?: string;
    instructions?: string;
  };
  action_books?: ActionBook[];
  tools?: ToolConfig[];
  context?: ContextVariable[];
  model?: { provider?: string; name?: string; temperature?: number; max_output_tokens?: number };
  limits?: Record<string, number>;
  [key: string]: unknown;
}

export function blankConfig(): AgentConfig {
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
