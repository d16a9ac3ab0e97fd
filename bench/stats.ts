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

/**
 * Times `a` and `b` alternately (a, b, a, b, …) after `warmup` untimed rounds of each, so drift in
 * the machine's load or the JIT's warm-up weighs on both alike; milliseconds per call of each.
 *
 * @example
 * const { a, b } = await sampleInterleaved(loop, bareLoop, { iterations: 300 });
 */
export async function sampleInterleaved(
  a: () => unknown,
  b: () => unknown,
  options: { iterations: number; warmup?: number },
): Promise<{ a: { median: number; p99: number }; b: { median: number; p99: number } }> {
  for (let i = 0; i < (options.warmup ?? Math.ceil(options.iterations / 10)); i++) {
    await a();
    await b();
  }
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  const time = async (fn: () => unknown, into: number[]) => {
    const start = performance.now();
    await fn();
    into.push(performance.now() - start);
  };
  for (let i = 0; i < options.iterations; i++) {
    // Alternate which goes first too: the second of a pair may inherit the first's garbage.
    if (i % 2 === 0) {
      await time(a, samplesA);
      await time(b, samplesB);
    } else {
      await time(b, samplesB);
      await time(a, samplesA);
    }
  }
  return { a: summarize(samplesA), b: summarize(samplesB) };
}
