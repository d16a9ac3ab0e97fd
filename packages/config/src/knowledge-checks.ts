import type { FieldIssue } from '@agentry/errors';
import { pointer } from './json-pointer.ts';

type Json = Record<string, unknown>;

/** The built-in tool an agent with `knowledge` in `tool` mode searches its bases with. */
export const KNOWLEDGE_TOOL_NAME = 'search_knowledge';

/** Whether the config gives the model the `search_knowledge` tool (`knowledge.mode` tool, the default). */
export function offersKnowledgeTool(doc: Json): boolean {
  const knowledge = doc.knowledge;
  return isObject(knowledge) && (knowledge.mode === undefined || knowledge.mode === 'tool');
}

/**
 * Cross-field rules of `knowledge`: each base named once, and no tool of the config named like the
 * built-in `search_knowledge` (the runner answers that name itself, so a tool of that name could
 * never run).
 *
 * @example
 * knowledgeIssues({ knowledge: { bases: ['Help', 'Help'] } }); // duplicate_knowledge_base at /knowledge/bases/1
 */
export function knowledgeIssues(doc: Json): FieldIssue[] {
  const knowledge = doc.knowledge;
  if (!isObject(knowledge)) return [];
  const issues: FieldIssue[] = [];
  const bases = Array.isArray(knowledge.bases) ? knowledge.bases : [];
  const seen = new Map<string, number>();
  bases.forEach((base, i) => {
    if (typeof base !== 'string') return;
    // Names are compared as the store compares them: trimmed, case-insensitively.
    const key = base.trim().toLowerCase();
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    issues.push({
      path: pointer('knowledge', 'bases', i),
      code: 'duplicate_knowledge_base',
      message: `knowledge.bases[${i}] is \`${base}\`, like knowledge.bases[${first}]`,
      hint: 'name each knowledge base once',
    });
  });
  const tools = Array.isArray(doc.tools) ? doc.tools : [];
  tools.forEach((tool, i) => {
    if (!isObject(tool) || tool.name !== KNOWLEDGE_TOOL_NAME) return;
    issues.push({
      path: pointer('tools', i, 'name'),
      code: 'reserved_tool_name',
      message: `tools[${i}] is named \`${KNOWLEDGE_TOOL_NAME}\`, the built-in tool of agents with knowledge bases`,
      hint: 'give the tool another name',
    });
  });
  return issues;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
