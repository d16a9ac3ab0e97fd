/**
 * The embedded mode's memory under a steady load (issue 23): `node apps/api/src/main.ts --embedded`
 * on a fresh data directory, SOAK_CLIENTS closed-loop clients (each: create a conversation, stream
 * one run, repeat) for SOAK_SECONDS, the process's RSS read every second. Prints one JSON line per
 * 10 s (RSS, runs so far) and a summary: RSS at the start of the load, at the end, its max, the
 * least-squares slope over the second half (MiB/min), runs/s and CPU ms per run (utime + stime of
 * the process from /proc over the whole soak). Not a `*.bench.ts`: `pnpm bench` does not run it.
 *
 *   node bench/embedded-soak.ts
 *
 * Environment:
 *   SOAK_WORKLOAD (short)   short: durable-runs' conversation (tool call + 52-character answer,
 *                           fake-instant); streaming: streaming.bench's (tool call + 1,200 characters
 *                           in 4–16-character pieces, stream-instant)
 *   SOAK_CLIENTS (8)        closed-loop clients
 *   SOAK_SECONDS (180)      length of the load
 *   SOAK_PROBE (unset)      a file: the process runs with bench/support/memory-probe.ts writing its
 *                           memoryUsage() and WebAssembly memory sizes there every second
 *   SOAK_ENV (unset)        extra platform settings as JSON, e.g. '{"NODE_OPTIONS":"--max-semi-space-size=8"}'
 */
import { join } from 'node:path';
import { load } from './support/load.ts';
import { createConversation, repoRoot, startEmbedded, startServices, streamRun } from './support/platform.ts';
import { cpuMs, rssBytes, slope } from './support/proc.ts';
import { ANSWER_CHARS, chunkSizeFor, deltaDelays, PACES, streamingQuestion } from './support/streaming-workload.ts';

const setting = (name: string): string | undefined => process.env[name];
const WORKLOAD = setting('SOAK_WORKLOAD') ?? 'short';
const CLIENTS = Number(setting('SOAK_CLIENTS') ?? 8);
const SECONDS = Number(setting('SOAK_SECONDS') ?? 180);
const PROBE = setting('SOAK_PROBE');
const EXTRA = JSON.parse(setting('SOAK_ENV') ?? '{}') as Record<string, string>;
const MiB = 1024 * 1024;

const model = WORKLOAD === 'streaming' ? PACES.instant.model : 'fake-instant';

function platformEnv(): Record<string, string> {
  if (!PROBE) return EXTRA;
  const probe = `--import=${join(repoRoot, 'bench/support/memory-probe.ts')}`;
  return { ...EXTRA, NODE_OPTIONS: `${EXTRA.NODE_OPTIONS ?? ''} ${probe}`.trim(), MEMORY_PROBE_FILE: PROBE };
}

async function main(): Promise<void> {
  const services = await startServices();
  const platform = await startEmbedded(services, [model], platformEnv()).catch(async (error: unknown) => {
    await services.stop();
    throw error;
  });
  let runs = 0;
  const one = async () => {
    const id = await createConversation(platform, platform.agents[model]);
    if (WORKLOAD !== 'streaming') return streamRun(platform, id, 'How many of item 42 are in stock?');
    const chunk = chunkSizeFor(runs);
    const reader = deltaDelays(chunk);
    const t = await streamRun(platform, id, streamingQuestion(chunk), reader.onText);
    if (reader.chars !== ANSWER_CHARS) throw new Error(`the answer had ${reader.chars} characters`);
    return t;
  };
  const readings: Array<{ x: number; y: number }> = [];
  const startRss = rssBytes(platform.api);
  const startCpu = cpuMs(platform.api);
  const start = performance.now();
  const counted = async () => {
    const t = await one();
    runs++;
    return t;
  };
  try {
    const loaded = await load(counted, CLIENTS, SECONDS, () => {
      const x = (performance.now() - start) / 60_000;
      readings.push({ x, y: rssBytes(platform.api) / MiB });
      if (readings.length % 10 === 0)
        console.log(JSON.stringify({ s: Math.round(x * 60), rssMiB: Math.round(readings.at(-1)!.y), runs }));
    });
    const cpu = cpuMs(platform.api) - startCpu;
    const secondHalf = readings.slice(Math.floor(readings.length / 2));
    const lastTenth = readings.slice(Math.floor(readings.length * 0.9));
    console.log(
      JSON.stringify({
        workload: WORKLOAD,
        clients: CLIENTS,
        seconds: SECONDS,
        runs: loaded.timings.length,
        errors: loaded.errors,
        firstError: loaded.firstError ? String(loaded.firstError).slice(0, 200) : undefined,
        runsPerSecond: loaded.timings.length / SECONDS,
        cpuMsPerRun: cpu / Math.max(1, runs),
        rssStartMiB: startRss / MiB,
        rssEndMiB: lastTenth.reduce((s, r) => s + r.y, 0) / Math.max(1, lastTenth.length),
        rssMaxMiB: Math.max(...readings.map((r) => r.y)),
        slopeSecondHalfMiBPerMin: slope(secondHalf),
        slopeAllMiBPerMin: slope(readings),
      }),
    );
  } finally {
    await platform.stop();
    await services.stop();
  }
}

await main();
