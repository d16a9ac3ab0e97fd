import type { ToolCallPart } from '@agentry/llm';
import { canonicalJson } from './canonical-json.ts';

/** What to do with a call given how often it was made before. */
export type DoomVerdict = 'run' | 'notice' | 'stop';

/**
 * Counts identical calls (same name, same canonical arguments) within a run. The `threshold`-th
 * identical call is not executed (the model gets a notice); one more after that ends the run.
 *
 * @example
 * const doom = new DoomLoopDetector(3);
 * doom.check(call); // 'run', 'run', then 'notice', then 'stop'
 */
export class DoomLoopDetector {
  readonly threshold: number;
  #counts = new Map<string, number>();

  constructor(threshold: number) {
    this.threshold = threshold;
  }

  check(call: ToolCallPart): DoomVerdict {
    const key = `${call.name}\u0000${call.rawArguments ?? canonicalJson(call.arguments)}`;
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    if (count < this.threshold) return 'run';
    return count === this.threshold ? 'notice' : 'stop';
  }
}
