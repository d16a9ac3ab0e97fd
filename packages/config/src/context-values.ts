import type { ContextVariableConfig } from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import { reservedContextNames } from './context-variables.ts';
import { pointer } from './json-pointer.ts';

const typeChecks: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
};

/**
 * Checks the context an application passes for a conversation against the agent's declared
 * variables: required ones present, each of its declared type. Paths point into the context object.
 *
 * @example
 * contextIssues(agent.contextVariables, { customerId: 42 });
 * // [{ path: '/customerId', code: 'wrong_type', message: 'context variable `customerId` must be a string' }]
 */
export function contextIssues(
  declared: readonly ContextVariableConfig[],
  context: Record<string, unknown>,
): FieldIssue[] {
  const issues: FieldIssue[] = reservedContextIssues(context);
  for (const variable of declared) {
    const value = Object.hasOwn(context, variable.name) ? context[variable.name] : undefined;
    const path = pointer(variable.name);
    if (value === undefined || value === null) {
      if (variable.required) {
        issues.push({ path, code: 'missing_context', message: `context variable \`${variable.name}\` is required` });
      }
      continue;
    }
    const type = variable.type ?? 'string';
    if (!typeChecks[type]?.(value)) {
      issues.push({
        path,
        code: 'wrong_type',
        message: `context variable \`${variable.name}\` must be ${type === 'integer' ? 'an' : 'a'} ${type}`,
      });
    }
  }
  return issues;
}

/**
 * One `reserved_context_variable` issue per system variable the caller tried to set (`tenantId`,
 * `agentId`, `conversationId`, `dialogId`, `chatbotId`); `pathOf` places it (default: a pointer
 * into the context object).
 *
 * @example
 * reservedContextIssues({ tenantId: 't2', plan: 'gold' });
 * // [{ path: '/tenantId', code: 'reserved_context_variable', message: '…', hint: '…' }]
 */
export function reservedContextIssues(
  context: Record<string, unknown>,
  pathOf: (name: string) => string = (name) => pointer(name),
): FieldIssue[] {
  return Object.keys(context)
    .filter((name) => reservedContextNames.includes(name))
    .map((name) => ({
      path: pathOf(name),
      code: 'reserved_context_variable',
      message: `context variable \`${name}\` is filled by the system and cannot be passed`,
      hint: `leave out ${reservedContextNames.join(', ')}: every run reads their real values as {{context.${name}}}`,
    }));
}

/**
 * The context variables marked `visible_to_model`, as a short note to add to the conversation (the
 * system prompt stays static and cacheable). Undefined when there is nothing to show.
 *
 * @example
 * modelVisibleContext([{ name: 'customerName', visible_to_model: true }], { customerName: 'Ada' });
 * // 'Context:\n- customerName: Ada'
 */
export function modelVisibleContext(
  declared: readonly ContextVariableConfig[],
  context: Record<string, unknown>,
): string | undefined {
  const lines = declared
    .filter((v) => v.visible_to_model && context[v.name] !== undefined && context[v.name] !== null)
    .map((v) => `- ${v.name}${v.description ? ` (${v.description})` : ''}: ${String(context[v.name])}`);
  return lines.length > 0 ? `Context:\n${lines.join('\n')}` : undefined;
}
