import type { CompiledFlow } from './compile-flows.ts';

/**
 * The first flow (in config order) with a trigger pattern that matches the user's message, and the
 * pattern that matched: a flow started this way costs no model call.
 *
 * @example
 * matchTrigger(flows, 'I want to make a leave request')?.flow.name; // 'leave_request'
 */
export function matchTrigger(
  flows: readonly CompiledFlow[],
  text: string,
): { flow: CompiledFlow; pattern: string } | undefined {
  for (const flow of flows) {
    const index = flow.triggers.findIndex((re) => re.matcher(text).find());
    if (index >= 0) return { flow, pattern: flow.config.triggers!.patterns![index]! };
  }
  return undefined;
}
