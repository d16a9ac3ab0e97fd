/**
 * Durable runs end to end (issue 5's benchmark), side by side in one run on this machine:
 *   (a) the embedded mode: one process, PGlite, in-process jobs and event bus;
 *   (b) one API process + one worker process on a fresh Postgres database and Redis (BullMQ);
 *   (c) the baseline: a bare `openai` SDK for-loop doing the same two model calls + the HTTP tool call.
 * Every run is a two-step conversation against the instant fake model (tool call, then the answer)
 * with one HTTP tool call to a local recording server. Clients talk to the API over HTTP with
 * fetch, create a conversation per run and stream the run on the message POST (SSE).
 * Then, on (b): N conversations streaming at once with the model taking 2 s per call (memory per
 * conversation), CPU time per run over every process, and a soak with the RSS slope.
 * See bench/README.md for the method. Environment: THROUGHPUT_SECONDS (15), CLIENTS (32),
 * STREAMS (1000), SOAK_SECONDS (60), SOAK_CLIENTS (16), BENCH_CPU_PROF (a directory: profile API
 * and worker with --cpu-prof).
 */
import { Redis } from 'ioredis';
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import { atOnce, atOnceNote, memoryPerConversation } from './support/at-once.ts';
import { bareLoop } from './support/bare-loop.ts';
import { countWindow, topCommands } from './support/counters.ts';
import { errorNote, type Load, load, sequential } from './support/load.ts';
import {
  createConversation,
  mapLimit,
  type Platform,
  type Services,
  startEmbedded,
  startSeparate,
  startServices,
  streamRun,
  type Timing,
} from './support/platform.ts';
import { rssBytes, slope } from './support/proc.ts';

const setting = (name: string): string | undefined => process.env[name];
const envNumber = (name: string, fallback: number) => Number(setting(name) ?? fallback);
const THROUGHPUT_SECONDS = envNumber('THROUGHPUT_SECONDS', 15);
const CLIENTS = envNumber('CLIENTS', 32);
const SEQUENTIAL_RUNS = envNumber('SEQUENTIAL_RUNS', 150);
const STREAMS = envNumber('STREAMS', 1000);
const SOAK_SECONDS = envNumber('SOAK_SECONDS', 60);
const SOAK_CLIENTS = envNumber('SOAK_CLIENTS', 16);
/** Which modes to run (default all: `abc`); `b` alone, e.g. for profiling, skips the baseline and its ratios. */
const MODES = setting('BENCH_MODES') ?? 'abc';
const QUESTION = 'How many of item 42 are in stock? Tell ann@example.com.';
const MODELS = ['fake-instant', 'fake-slow'] as const;
type Model = (typeof MODELS)[number];
const MB = 2 ** 20;

/** One two-step conversation on the platform: a new conversation, then the streamed run (timed). */
function platformRun(p: Platform<Model>, model: Model): () => Promise<Timing> {
  return async () => streamRun(p, await createConversation(p, p.agents[model]), QUESTION);
}

interface ModeFigures {
  label: string;
  seq: Timing[];
  loaded: Load<Timing>;
}

/** The figures every mode has: runs/s, and first-token / completion latency alone and under load. */
function modeResults(m: ModeFigures, baseline?: ModeFigures): BenchResult[] {
  const pick = (ts: Timing[], k: 'first' | 'done') => summarize(ts.map((t) => t[k]));
  const ratio = (ts: Timing[], k: 'first' | 'done', base?: Timing[]) =>
    base ? { ratio: pick(ts, k).median / pick(base, k).median } : {};
  const rate = summarize(m.loaded.perSecond);
  const total = m.loaded.timings.length / m.loaded.seconds;
  const results: BenchResult[] = [
    {
      name: `${m.label}: runs per second`,
      unit: 'runs/s',
      median: rate.median,
      p99: Math.min(...m.loaded.perSecond),
      ...(baseline ? { ratio: total / (baseline.loaded.timings.length / baseline.loaded.seconds) } : {}),
      note: `${CLIENTS} clients, ${m.loaded.seconds} s; median and slowest 1-s bucket; mean ${total.toFixed(0)}/s${errorNote(m.loaded)}`,
    },
  ];
  for (const [k, what] of [
    ['first', 'message sent → first token'],
    ['done', 'message sent → run completed'],
  ] as const) {
    results.push({
      name: `${m.label}: ${what}, 1 client`,
      unit: 'ms',
      ...pick(m.seq, k),
      ...ratio(m.seq, k, baseline?.seq),
      note: `${m.seq.length} sequential runs`,
    });
    results.push({
      name: `${m.label}: ${what}, ${CLIENTS} clients`,
      unit: 'ms',
      ...pick(m.loaded.timings, k),
      ...ratio(m.loaded.timings, k, baseline?.loaded.timings),
      note: 'during the runs/s window',
    });
  }
  if (baseline) {
    const a = pick(m.seq, 'first');
    const b = pick(baseline.seq, 'first');
    results.push({
      name: `${m.label}: added latency to first token (vs bare loop), 1 client`,
      unit: 'ms',
      median: a.median - b.median,
      p99: a.p99 - b.p99,
      note: 'difference of the medians (p99s)',
    });
  }
  return results;
}

/** N conversations streaming at once against the 2-s model: completion times and RSS per conversation. */
async function manyStreams(p: Platform<Model>, n: number): Promise<BenchResult[]> {
  const ids = await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    32,
    () => createConversation(p, p.agents['fake-slow']),
  );
  const r = await atOnce(ids, (id) => streamRun(p, id, QUESTION), { api: p.api, worker: p.worker });
  return [
    {
      name: `${p.label}: ${n} concurrent streaming conversations, message sent → run completed`,
      unit: 'ms',
      ...summarize(r.ok.map((t) => t.done)),
      note: `${atOnceNote(r)}; model 2 s per call; ideal ≈ 4000 ms`,
    },
    ...memoryPerConversation(p.label, r),
  ];
}

/** The throughput phase of (b) with CPU time of every process involved. */
async function separateThroughput(p: Platform<Model>, services: Services) {
  const { result: loaded, counters: c } = await countWindow(p, [process.pid, services.pid], (tick) =>
    load(platformRun(p, 'fake-instant'), CLIENTS, THROUGHPUT_SECONDS, tick),
  );
  const runs = loaded.timings.length;
  const redisPerRun = c.redis.reduce((sum, [, n]) => sum + n, 0) / runs;
  const platform = c.cpu.api + c.cpu.worker + c.cpu.postgres + c.cpu.redis;
  const others = c.machine.busy - platform - c.cpu.client;
  const idle = c.machine.total - c.machine.busy;
  const perRun = (ms: number) => ({ median: ms / runs, p99: ms / runs });
  const w = c.writes;
  const cpu: BenchResult[] = [
    {
      name: '(b) API + worker: CPU time per run, API + worker + Postgres + Redis',
      unit: 'ms CPU/run',
      ...perRun(platform),
      note: `over the runs/s window, ${runs} runs; one value; the bench client + fake services used ${(c.cpu.client / runs).toFixed(2)} ms/run more, other processes on the machine ${(others / 1000).toFixed(1)} s CPU, idle ${(idle / 1000).toFixed(1)} s`,
    },
    ...(['api', 'worker', 'postgres', 'redis'] as const).map((k) => ({
      name: `(b) API + worker: CPU time per run, ${k}`,
      unit: 'ms CPU/run',
      ...perRun(c.cpu[k]),
      note:
        k === 'postgres'
          ? 'backends of the bench database + the shared WAL writer, checkpointer, background writer, autovacuum'
          : k === 'redis'
            ? 'the whole redis-server (shared with other users of this machine)'
            : 'one value',
    })),
    {
      name: '(b) API + worker: write system calls per run, API + worker + Postgres + Redis',
      unit: 'writes/run',
      ...perRun(w.api + w.worker + w.postgres + w.redis),
      note: `/proc/<pid>/io syscw over the runs/s window: api ${(w.api / runs).toFixed(1)}, worker ${(w.worker / runs).toFixed(1)}, postgres ${(w.postgres / runs).toFixed(1)}, redis ${(w.redis / runs).toFixed(1)} (shared Redis)`,
    },
    {
      name: '(b) API + worker: Postgres transactions per run',
      unit: 'xacts/run',
      ...perRun(c.db.xacts),
      note: `pg_stat_database of the bench database over the runs/s window (includes conversation creation); rows written ${(c.db.writes / runs).toFixed(1)}/run, rows read ${(c.db.reads / runs).toFixed(0)}/run`,
    },
    {
      name: '(b) API + worker: Redis commands per run',
      unit: 'commands/run',
      median: redisPerRun,
      p99: redisPerRun,
      note: `INFO commandstats delta (shared Redis: includes other users); top: ${topCommands(c, runs)}`,
    },
  ];
  return { loaded, cpu };
}

/** Steady load for SOAK_SECONDS: RSS of API and worker every second, slope by least squares. */
async function soak(p: Platform<Model>): Promise<BenchResult[]> {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  const redisBefore = await usedMemory();
  const start = performance.now();
  const samples: Array<{ t: number; api: number; worker: number }> = [];
  const sampleRss = () =>
    samples.push({
      t: (performance.now() - start) / 60_000,
      api: rssBytes(p.api) / MB,
      worker: rssBytes(p.worker) / MB,
    });
  sampleRss();
  const loaded = await load(platformRun(p, 'fake-instant'), SOAK_CLIENTS, SOAK_SECONDS, sampleRss);
  sampleRss();
  const redisAfter = await usedMemory();
  redis.disconnect();
  const runs = loaded.timings.length;
  const trend = (k: 'api' | 'worker', from = 0) => slope(samples.slice(from).map((s) => ({ x: s.t, y: s[k] })));
  const range = (k: 'api' | 'worker') =>
    `${samples[0]![k].toFixed(0)} → ${samples.at(-1)![k].toFixed(0)} MiB (max ${Math.max(...samples.map((s) => s[k])).toFixed(0)})`;
  const note = `soak ${SOAK_SECONDS} s, ${SOAK_CLIENTS} clients, ${runs} runs`;
  return [
    {
      name: `${p.label}: soak runs per second`,
      unit: 'runs/s',
      median: summarize(loaded.perSecond).median,
      p99: Math.min(...loaded.perSecond),
      note: `${note}; median and slowest 1-s bucket${errorNote(loaded)}`,
    },
    {
      name: `${p.label}: soak message sent → run completed`,
      unit: 'ms',
      ...summarize(loaded.timings.map((t) => t.done)),
      note,
    },
    ...(['api', 'worker'] as const).map((k) => ({
      name: `${p.label}: soak RSS slope, ${k}`,
      unit: 'MiB/min',
      median: trend(k),
      p99: trend(k),
      note: `${note}; least squares over ${samples.length} 1-s samples (second half alone: ${trend(k, samples.length >> 1).toFixed(2)}); ${range(k)}`,
    })),
    {
      name: `${p.label}: Redis memory kept per run`,
      unit: 'bytes/run',
      median: (redisAfter - redisBefore) / runs,
      p99: (redisAfter - redisBefore) / runs,
      note: `${note}; used_memory delta (the run's event stream lives 24 h); shared Redis`,
    },
  ];
}

/** The embedded process's RSS before and after its runs/s window, per run (the in-memory bus keeps events 24 h). */
function rssPerRun(p: Platform<Model>, before: number, runs: number): BenchResult {
  const after = rssBytes(p.api);
  return {
    name: `${p.label}: RSS growth per run over the runs/s window`,
    unit: 'KiB/run',
    median: (after - before) / runs / 1024,
    p99: (after - before) / runs / 1024,
    note: `${(before / MB).toFixed(0)} → ${(after / MB).toFixed(0)} MiB over ${runs} runs`,
  };
}

export async function run(): Promise<BenchResult[]> {
  const services = await startServices();
  const results: BenchResult[] = [];
  const log = (message: string) => process.stdout.write(`  [durable-runs] ${message}\n`);
  try {
    let baseline: ModeFigures | undefined;
    if (MODES.includes('c')) {
      log('(c) bare openai SDK loop');
      const loop = bareLoop(services, 'fake-instant');
      const bare = () => loop(QUESTION);
      baseline = {
        label: '(c) bare openai SDK loop (baseline)',
        seq: await sequential(bare, SEQUENTIAL_RUNS),
        loaded: await load(bare, CLIENTS, THROUGHPUT_SECONDS),
      };
      results.push(...modeResults(baseline));
    }

    if (MODES.includes('a')) {
      log('(a) embedded');
      const embedded = await startEmbedded(services, MODELS);
      try {
        const one = platformRun(embedded, 'fake-instant');
        const seq = await sequential(one, SEQUENTIAL_RUNS);
        const rssBefore = rssBytes(embedded.api);
        const loaded = await load(one, CLIENTS, THROUGHPUT_SECONDS);
        results.push(...modeResults({ label: embedded.label, seq, loaded }, baseline));
        results.push(rssPerRun(embedded, rssBefore, loaded.timings.length));
      } finally {
        await embedded.stop();
      }
    }

    if (!MODES.includes('b')) return results;
    log('(b) API + worker');
    const separate = await startSeparate(services, MODELS);
    try {
      const seq = await sequential(platformRun(separate, 'fake-instant'), SEQUENTIAL_RUNS);
      const { loaded, cpu } = await separateThroughput(separate, services);
      results.push(...modeResults({ label: separate.label, seq, loaded }, baseline), ...cpu);
      // The soak follows the runs/s window (same kind of load), before the N-streams peak inflates the heaps.
      if (SOAK_SECONDS > 0) {
        log(`(b) soak ${SOAK_SECONDS} s`);
        results.push(...(await soak(separate)));
      }
      if (STREAMS > 0) {
        log(`(b) ${STREAMS} concurrent streams`);
        results.push(...(await manyStreams(separate, STREAMS)));
      }
    } finally {
      await separate.stop();
    }
  } finally {
    await services.stop();
  }
  return results;
}

// `node bench/durable-runs.bench.ts` prints the figures on its own.
if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.name}: median ${r.median.toFixed(2)} ${r.unit}, p99 ${r.p99.toFixed(2)}${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
}
