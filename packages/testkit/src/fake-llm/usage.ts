import type { FakeUsage } from './types.ts';

/** FakeUsage with every counter filled in. */
export type ResolvedUsage = Required<FakeUsage>;

/**
 * Applies the documented defaults (input 10, output 5, no cache).
 *
 * @example
 * resolveUsage({ output: 7 }); // { input: 10, output: 7, cacheRead: 0, cacheWrite: 0 }
 */
export function resolveUsage(usage: FakeUsage | undefined): ResolvedUsage {
  return {
    input: usage?.input ?? 10,
    output: usage?.output ?? 5,
    cacheRead: usage?.cacheRead ?? 0,
    cacheWrite: usage?.cacheWrite ?? 0,
  };
}
