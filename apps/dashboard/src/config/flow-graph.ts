import type { FlowStepConfig } from '@agentry/contract';

/** Where an arrow of the graph leaves from: the step's default way on, or a named exit. */
export type EdgeKind = 'next' | 'yes' | 'no' | 'goto' | 'else' | 'on_error';

export interface FlowEdge {
  from: string;
  /** A step id, or {@link END} when the flow ends there. */
  to: string;
  kind: EdgeKind;
}

/** The pseudo-node a flow ends at. */
export const END = '__end';

/** Step types that end the flow (no arrow leaves them). */
const TERMINAL = new Set(['end', 'handoff']);

/**
 * The arrows between a flow's steps, as the engine walks them: `next` (default: the step below;
 * after the last step the flow ends), a confirm's yes (default next) and no (default: the end), a
 * branch's gotos and else (default next), a tool step's on_error.
 *
 * @example
 * flowEdges([{ id: 'a', type: 'ask' }, { id: 'b', type: 'end' }]); // [{ from: 'a', to: 'b', kind: 'next' }]
 */
export function flowEdges(steps: readonly FlowStepConfig[]): FlowEdge[] {
  const edges: FlowEdge[] = [];
  steps.forEach((step, i) => {
    if (TERMINAL.has(step.type)) return;
    const below = steps[i + 1]?.id ?? END;
    const next = step.next || below;
    const add = (to: string, kind: EdgeKind) => edges.push({ from: step.id, to, kind });
    if (step.type === 'confirm') {
      add(step.yes || next, 'yes');
      add(step.no || END, 'no');
    } else if (step.type === 'branch') {
      for (const branch of step.branches ?? []) if (branch.goto) add(branch.goto, 'goto');
      add(step.else || next, 'else');
    } else {
      add(next, 'next');
      if (step.type === 'tool' && step.on_error) add(step.on_error, 'on_error');
    }
  });
  return edges;
}

/**
 * A step id not yet used in the flow: `<base>`, else `<base>_2`, `<base>_3`…
 *
 * @example
 * freeStepId(['ask'], 'ask'); // 'ask_2'
 */
export function freeStepId(taken: readonly string[], base: string): string {
  if (!taken.includes(base)) return base;
  let n = 2;
  while (taken.includes(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

const STEP_REFS = ['next', 'yes', 'no', 'on_error', 'else'] as const;

/** The steps with a step renamed, and every reference to it (next, yes, no, on_error, else, goto). */
export function renameStep(steps: readonly FlowStepConfig[], from: string, to: string): FlowStepConfig[] {
  return steps.map((step) => {
    const next: FlowStepConfig = { ...step };
    if (step.id === from) next.id = to;
    for (const key of STEP_REFS) if (step[key] === from) next[key] = to;
    if (step.branches) next.branches = step.branches.map((b) => (b.goto === from ? { ...b, goto: to } : b));
    return next;
  });
}
