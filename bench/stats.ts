/** Median and 99th percentile of a list of samples. */
export function summarize(samples: number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { median: at(0.5), p99: at(0.99) };
}

/**
 * Times `fn` `iterations` times after `warmup` untimed calls; returns milliseconds per call.
 *
 * @example
 * const { median, p99 } = await sample(() => render(tool, args), { iterations: 1000 });
 */
export async function sample(
  fn: () => unknown,
  options: { iterations: number; warmup?: number },
): Promise<{ median: number; p99: number; samples: number[] }> {
  for (let i = 0; i < (options.warmup ?? Math.ceil(options.iterations / 10)); i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < options.iterations; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return { ...summarize(samples), samples };
}
