import type { ToolConfig } from '@agentry/contract';

/** A secret the imported tools read (`{{secrets.NAME}}`): the dashboard asks for its value. */
export interface SuggestedSecret {
  name: string;
  description: string;
}

/** Something the tenant should know about one tool (or the whole import when `tool` is `*`). */
export interface ImportNote {
  tool: string;
  message: string;
}

/** An operation of the document, whether or not it became a tool. */
export interface OperationSummary {
  id: string;
  method: string;
  path: string;
  summary: string;
  selected: boolean;
}

/** What an import returns: tool configs ready for a draft (nothing is saved). */
export interface ImportResult {
  tools: ToolConfig[];
  secrets: SuggestedSecret[];
  notes: ImportNote[];
  operations: OperationSummary[];
}
