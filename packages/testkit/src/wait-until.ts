/**
 * Polls `probe` (sync or async) every `intervalMs` until it gives something other than `undefined`,
 * and returns that; throws past `timeoutMs`. For tests that wait on another process (a child appearing, a row
 * changing) with no event to wait on.
 *
 * @example
 * const pid = await waitUntil(() => childPids()[0], { timeoutMs: 10_000, intervalMs: 2 });
 */
export async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
