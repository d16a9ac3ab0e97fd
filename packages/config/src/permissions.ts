import type { PermissionAction, PermissionRuleConfig } from '@agentry/contract';
import { type ArgumentsValidator, argumentsValidator } from './parameters-validator.ts';

/** What a denied call tells the model when its rule gives no `message`. */
export const DEFAULT_DENY_MESSAGE =
  'A permission rule does not allow this tool call. Do not try it again; tell the user.';

/** The rule that decided a call (its place in `permissions`, its pattern and, for deny, its message). */
export interface MatchedRule {
  index: number;
  tool: string;
  message: string;
}

/** How a tool call goes: run it, ask a person first, or answer it with an error without sending it. */
export interface PermissionDecision {
  action: PermissionAction;
  /** Absent when no rule matched and the tool's own `approval` decided. */
  rule?: MatchedRule;
}

/**
 * Decides one call from its tool name and arguments; `fallback` is what applies when no rule
 * matches (the tool's own `approval`: always → ask, never → allow).
 */
export type PermissionDecider = (name: string, args: unknown, fallback: PermissionAction) => PermissionDecision;

/**
 * Whether a tool name matches a rule's pattern: `*` stands for any run of characters (also
 * none), every other character for itself. Linear in the name's length per segment, no regular
 * expression, so a tenant's pattern cannot cost more than the scan.
 *
 * @example
 * toolPatternMatches('refund_*', 'refund_order'); // true
 * toolPatternMatches('crm__*', 'billing__refund'); // false
 */
export function toolPatternMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  // Between the fixed ends, the leftmost place for each middle segment leaves the most room for
  // the next ones, so a greedy scan finds a match whenever one exists.
  const end = name.length - last.length;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/**
 * Whether a pattern matches some name that starts with `prefix` and goes on past it: used for
 * MCP servers whose tools are only known after discovery (`crm__` + anything). With a `*` the
 * pattern's text before it only has to agree with the prefix (the `*` can take up the rest).
 *
 * @example
 * patternCanMatchPrefixed('crm__*', 'crm__'); // true
 * patternCanMatchPrefixed('*', 'crm__'); // true
 * patternCanMatchPrefixed('billing__*', 'crm__'); // false
 */
export function patternCanMatchPrefixed(pattern: string, prefix: string): boolean {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern.startsWith(prefix) && pattern.length > prefix.length;
  const literal = pattern.slice(0, star);
  return literal.startsWith(prefix) || prefix.startsWith(literal);
}

/**
 * Compiles an agent's `permissions` once (each `when` becomes an ajv validator) into a decider:
 * the first rule whose pattern matches the tool name and whose `when` (if any) accepts the
 * arguments decides; with none, `fallback`. A `when` that cannot compile never matches (the
 * loader refuses such configs, so this only guards configs that skipped it).
 *
 * @example
 * const decide = compilePermissions([
 *   { tool: 'refund_*', when: { properties: { amount: { minimum: 1000 } }, required: ['amount'] }, action: 'ask' },
 *   { tool: 'delete_*', action: 'deny', message: 'Deleting is not allowed here.' },
 * ]);
 * decide('refund_order', { amount: 5000 }, 'allow').action; // 'ask'
 * decide('refund_order', { amount: 50 }, 'allow').action; // 'allow'
 * decide('delete_user', {}, 'allow'); // { action: 'deny', rule: { index: 1, tool: 'delete_*', message: 'Deleting is not allowed here.' } }
 */
export function compilePermissions(rules: readonly PermissionRuleConfig[]): PermissionDecider {
  const compiled = rules.map((rule, index) => ({
    rule: { index, tool: rule.tool, message: rule.message ?? DEFAULT_DENY_MESSAGE },
    action: rule.action,
    accepts: rule.when === undefined ? () => true : whenValidator(rule.when as Record<string, unknown>),
  }));
  return (name, args, fallback) => {
    for (const entry of compiled) {
      if (toolPatternMatches(entry.rule.tool, name) && entry.accepts(args)) {
        return { action: entry.action, rule: entry.rule };
      }
    }
    return { action: fallback };
  };
}

function whenValidator(schema: Record<string, unknown>): (args: unknown) => boolean {
  let validate: ArgumentsValidator;
  try {
    validate = argumentsValidator(schema);
  } catch {
    return () => false;
  }
  return (args) => validate(args).ok;
}
