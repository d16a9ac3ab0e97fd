import type { CompiledFlow } from './compile-flows.ts';
import type { FlowState } from './flow-state.ts';

/** What a flow's templates read: the slots at the top, `result`, and `context`. Never secrets. */
function viewOf(state: FlowState, context: Record<string, unknown>) {
  return { ...state.slots, result: state.result, context, secrets: {} };
}

/**
 * Renders a prompt or message of the flow as plain text.
 *
 * @example
 * renderText(flow, 'File leave from {{start}}?', state, {}); // 'File leave from 2026-12-01?'
 */
export function renderText(
  flow: CompiledFlow,
  source: string,
  state: FlowState,
  context: Record<string, unknown>,
): string {
  return flow.template(source).render(viewOf(state, context));
}

/**
 * A tool step's arguments: string values are templates, and one that is a single placeholder
 * (`"{{amount}}"`) keeps the value's JSON type; other values are copied.
 *
 * @example
 * renderArguments(flow, { amount: '{{amount}}', note: 'Refund {{order}}' }, state, {});
 */
export function renderArguments(
  flow: CompiledFlow,
  value: unknown,
  state: FlowState,
  context: Record<string, unknown>,
): unknown {
  const view = viewOf(state, context);
  const render = (v: unknown): unknown => {
    if (typeof v === 'string') return flow.template(v).value(view);
    if (Array.isArray(v)) return v.map(render);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, render(inner)]));
    }
    return v;
  };
  return render(value);
}

/**
 * Reads a JSON pointer (RFC 6901) from a tool result; a result that is JSON text is parsed first.
 * Undefined when the pointer leads nowhere.
 *
 * @example
 * readPointer({ id: 'LR-7' }, '/id'); // 'LR-7'
 */
export function readPointer(output: unknown, pointer: string): unknown {
  let current: unknown = output;
  if (typeof current === 'string') {
    try {
      current = JSON.parse(current);
    } catch {
      return pointer === '' ? output : undefined;
    }
  }
  if (pointer === '') return current;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
