/**
 * Long streamed answers end to end (issue 23): every run is a tool call (an HTTP tool on a local
 * server), then an answer of 1,200 characters (≈ 300 tokens) in pieces of 4–16 characters, each
 * piece stamped with the moment the fake model wrote it (bench/support/streaming-workload.ts).
 * Four ways of running it, side by side in one run:
 *   (a) the embedded mode; (b) one API + one worker on Postgres + Redis;
 *   (c) the bare loop: the openai SDK + fetch in the bench process (no server, no client);
 *   (d) a fair hand-written server: a minimal node:http handler running that same loop and relaying
 *       each delta to its client as SSE (bench/support/hand-server.ts).
 * Phases per mode: runs/s at the instant pace (closed-loop clients, CPU per run per process; for (b)
 * Redis commands and Postgres transactions per run); a few conversations at the model's pace (240
 * characters/s, first token after 300 ms) — (c)'s are the model's own time; N conversations at once
 * at the model's pace (completion as a multiple of the model's own time, memory per conversation).
 * Delta delay (stamp → client) everywhere. See bench/README.md for the method.
 *
 * Environment (the defaults keep one run under ≈ 6 minutes on 2 cores):
 *   STREAMING_MODES (cdab)              modes to measure; (c)'s model-pace phase always runs
 *   STREAMING_WINDOW_SECONDS (15)       the runs/s window at the instant pace, per mode
 *   STREAMING_WARMUP_SECONDS (3)        untimed load before each window
 *   STREAMING_CLIENTS (32)              closed-loop clients in the window
 *   STREAMING_PACED (26)                conversations at once at the model's pace, light load (2 per piece size)
 *   STREAMING_CONVERSATIONS (1000)      conversations at once at the model's pace (200: a quick run; 0 skips)
 *   STREAMING_CONCURRENT_MODES (bd)     modes that take the N-conversations phase
 */
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import { type AtOnce, atOnce, atOnceNote, memoryPerConversation } from './support/at-once.ts';
import { bareLoop } from './support/bare-loop.ts';
import { countWindow, topCommands, type WindowCounters } from './support/counters.ts';
import { errorNote, type Load, load, rate } from './support/load.ts';
import {
  createConversation,
  type Helper,
  mapLimit,
  type Platform,
  type Services,
  startEmbedded,
  startHelper,
  startSeparate,
  startServices,
  streamRun,
  type Timing,
} from './support/platform.ts';
import { cpuMeter, machineCpuMs } from './support/proc.ts';
import { readSse } from './support/sse-client.ts';
import {
  ANSWER_CHARS,
  chunkSizeFor,
  deltaDelays,
  PACES,
  type Pace,
  streamingQuestion,
} from './support/streaming-workload.ts';

const setting = (name: string): string | undefined => process.env[name];
const envNumber = (name: string, fallback: number) => Number(setting(name) ?? fallback);
const MODES = setting('STREAMING_MODES') ?? 'cdab';
const WINDOW_SECONDS = envNumber('STREAMING_WINDOW_SECONDS', 15);
const WARMUP_SECONDS = envNumber('STREAMING_WARMUP_SECONDS', 3);
const CLIENTS = envNumber('STREAMING_CLIENTS', 32);
const PACED = envNumber('STREAMING_PACED', 26);
const CONVERSATIONS = envNumber('STREAMING_CONVERSATIONS', 1000);
const CONCURRENT_MODES = setting('STREAMING_CONCURRENT_MODES') ?? 'bd';
const MODELS = [PACES.instant.model, PACES.model.model] as const;
type Model = (typeof MODELS)[number];
type ModeKey = 'a' | 'b' | 'c' | 'd';

/** One run as the client saw it: its timing, piece size, and each whole piece's delay (ms). */
interface Sample extends Timing {
  chunk: number;
  delays: number[];
}

/** One way of running the workload. */
interface Mode {
  key: ModeKey;
  label: string;
  /** Untimed work before a run (a platform's new conversation); its result goes to `stream`. */
  prepare(pace: Pace): Promise<string | undefined>;
  stream(pace: Pace, prepared: string | undefined, question: string, onText: (text: string) => void): Promise<Timing>;
  /** Processes whose CPU is the mode's, by name ((b)'s come from its window counters). */
  cpu: Record<string, () => number[]>;
  /** Processes whose RSS is read while N conversations are open. */
  rss: Record<string, number>;
  platform?: Platform<Model>;
  stop(): Promise<void>;
}

function bareMode(services: Services): Mode {
  const loops = { instant: bareLoop(services, PACES.instant.model), model: bareLoop(services, PACES.model.model) };
  return {
    key: 'c',
    label: '(c) bare SDK loop',
    prepare: async () => undefined,
    stream: (pace, _prepared, question, onText) => loops[pace](question, onText),
    cpu: { 'bench process (loop + load driver)': () => [process.pid] },
    rss: {},
    stop: async () => {},
  };
}

async function handServerMode(services: Services): Promise<Mode> {
  const server: { line: { url: string } } & Helper = await startHelper('bench/support/hand-server.ts', {
    LLM_URL: services.llm,
    TOOL_URL: services.tool,
  });
  return {
    key: 'd',
    label: '(d) hand-written SSE server',
    prepare: async () => undefined,
    stream: async (pace, _prepared, question, onText) => {
      const start = performance.now();
      const res = await fetch(`${server.line.url}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ question, model: PACES[pace].model }),
        signal: AbortSignal.timeout(120_000),
      });
      let first: number | undefined;
      await readSse(res, (event, data) => {
        if (event === 'error') throw new Error(`hand-written server: ${data}`);
        if (event === 'done') return true;
        first ??= performance.now() - start;
        onText((JSON.parse(data) as { text: string }).text);
        return false;
      });
      const end = performance.now();
      if (first === undefined) throw new Error('no text');
      return { first, done: end - start, end };
    },
    cpu: { server: () => [server.pid] },
    rss: { server: server.pid },
    stop: () => server.stop(),
  };
}

function platformMode(key: 'a' | 'b', p: Platform<Model>): Mode {
  return {
    key,
    label: p.label,
    platform: p,
    prepare: (pace) => createConversation(p, p.agents[PACES[pace].model]),
    stream: (_pace, id, question, onText) => streamRun(p, id!, question, onText),
    cpu: key === 'a' ? { process: () => [p.api] } : {},
    rss: key === 'a' ? { process: p.api } : { api: p.api, worker: p.worker },
    stop: () => p.stop(),
  };
}

let runs = 0;

/** One run of `mode` with the next piece size; fails unless every character of the answer arrived. */
async function sampled(mode: Mode, pace: Pace, prepared?: { chunk: number; id: string | undefined }): Promise<Sample> {
  const chunk = prepared?.chunk ?? chunkSizeFor(runs++);
  const reader = deltaDelays(chunk);
  const id = prepared ? prepared.id : await mode.prepare(pace);
  const t = await mode.stream(pace, id, streamingQuestion(chunk), reader.onText);
  if (reader.chars !== ANSWER_CHARS) throw new Error(`the answer had ${reader.chars} of ${ANSWER_CHARS} characters`);
  return { ...t, chunk, delays: reader.delays };
}

interface Window {
  loaded: Load<Sample>;
  /** CPU ms per named process over the window. */
  cpu: Record<string, number>;
  /** The fake services' CPU ms, the machine's busy and total ms. */
  fake: number;
  machine: { busy: number; total: number };
  counters?: WindowCounters;
}

/** Warm-up, then the runs/s window at the instant pace with the mode's processes metered. */
async function instantWindow(mode: Mode, services: Services): Promise<Window> {
  await load(() => sampled(mode, 'instant'), CLIENTS, WARMUP_SECONDS);
  const meters = Object.entries({ ...mode.cpu, fake: () => [services.pid] }).map(
    ([name, pids]) => [name, cpuMeter(pids)] as const,
  );
  const machine = machineCpuMs();
  for (const [, m] of meters) m.start();
  const work = (tick: () => void) =>
    load(
      () => sampled(mode, 'instant'),
      CLIENTS,
      WINDOW_SECONDS,
      () => {
        tick();
        for (const [, m] of meters) m.poll();
      },
    );
  let loaded: Load<Sample>;
  let counters: WindowCounters | undefined;
  if (mode.platform?.database) {
    ({ result: loaded, counters } = await countWindow(mode.platform, [process.pid, services.pid], work));
  } else {
    loaded = await work(() => {});
  }
  const used = Object.fromEntries(meters.map(([name, m]) => [name, m.stop()]));
  const after = machineCpuMs();
  const { fake = 0, ...cpu } = used;
  if (counters) Object.assign(cpu, { api: counters.cpu.api, worker: counters.cpu.worker });
  if (counters) Object.assign(cpu, { postgres: counters.cpu.postgres, redis: counters.cpu.redis });
  return {
    loaded,
    cpu,
    fake,
    machine: { busy: after.busy - machine.busy, total: after.total - machine.total },
    ...(counters ? { counters } : {}),
  };
}

/** `n` conversations at once at the model's pace (created first, untimed), RSS read when `withRss`. */
async function pacedAtOnce(mode: Mode, n: number, withRss: boolean): Promise<AtOnce<Sample>> {
  const items = await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    32,
    async (i) => ({ chunk: chunkSizeFor(i), id: await mode.prepare('model') }),
  );
  return atOnce(items, (item) => sampled(mode, 'model', item), withRss ? mode.rss : {});
}

/** The model's own time per piece size: the median completion of (c)'s light model-pace phase. */
type Ideal = Map<number, number>;

function idealOf(samples: Sample[]): Ideal {
  const ideal: Ideal = new Map();
  for (const chunk of new Set(samples.map((s) => s.chunk)))
    ideal.set(chunk, summarize(samples.filter((s) => s.chunk === chunk).map((s) => s.done)).median);
  return ideal;
}

function timesModel(samples: Sample[], ideal: Ideal): { median: number; p99: number } {
  const overall = summarize([...ideal.values()]).median;
  return summarize(samples.map((s) => s.done / (ideal.get(s.chunk) ?? overall)));
}

function delays(samples: Sample[]) {
  const all = samples.flatMap((s) => s.delays);
  return { ...summarize(all), count: all.length, over100: all.filter((d) => d > 100).length };
}

function delayResult(name: string, samples: Sample[], note: string): BenchResult {
  const d = delays(samples);
  return {
    name,
    unit: 'ms',
    median: d.median,
    p99: d.p99,
    note: `${note}; ${d.count} pieces, ${((100 * d.over100) / Math.max(1, d.count)).toFixed(1)}% over 100 ms`,
  };
}

/** runs/s, the ratio rows, CPU per run per process and (for (b)) the Redis and Postgres counts. */
function windowResults(mode: Mode, w: Window, baselines: Partial<Record<'c' | 'd', Window>>): BenchResult[] {
  const r = rate(w.loaded);
  const n = w.loaded.timings.length;
  const busy = (100 * w.machine.busy) / Math.max(1, w.machine.total);
  const results: BenchResult[] = [
    {
      name: `${mode.label}: runs per second, instant model`,
      unit: 'runs/s',
      median: r.median,
      p99: r.slowest,
      ...(baselines.c ? { ratio: r.mean / rate(baselines.c.loaded).mean } : {}),
      note: `${CLIENTS} clients, ${WINDOW_SECONDS} s; median and slowest 1-s bucket; mean ${r.mean.toFixed(1)}/s; ratio: means vs (c)${errorNote(w.loaded)}`,
    },
  ];
  if (baselines.d && mode.key !== 'd') {
    const ratio = r.mean / rate(baselines.d.loaded).mean;
    results.push({
      name: `${mode.label}: runs per second relative to (d) the hand-written server`,
      unit: '×',
      median: ratio,
      p99: ratio,
      note: 'ratio of the window means, instant model',
    });
  }
  const perRun = (ms: number) => ({ median: ms / n, p99: ms / n });
  const context = `over the window, ${n} runs; the fake services used ${(w.fake / n).toFixed(2)} ms/run; machine ${busy.toFixed(0)}% busy`;
  const names = Object.keys(w.cpu);
  if (names.length > 1) {
    const total = Object.values(w.cpu).reduce((a, b) => a + b, 0);
    results.push({
      name: `${mode.label}: CPU time per run, ${names.join(' + ')}`,
      unit: 'ms CPU/run',
      ...perRun(total),
      note: context,
    });
  }
  for (const [name, ms] of Object.entries(w.cpu))
    results.push({
      name: `${mode.label}: CPU time per run, ${name}`,
      unit: 'ms CPU/run',
      ...perRun(ms),
      note: context,
    });
  const c = w.counters;
  if (c) {
    const commands = c.redis.reduce((sum, [, k]) => sum + k, 0);
    results.push(
      {
        name: `${mode.label}: Redis commands per run`,
        unit: 'commands/run',
        ...perRun(commands),
        note: `INFO commandstats delta (shared Redis: includes other users); top: ${topCommands(c, n)}`,
      },
      {
        name: `${mode.label}: Postgres transactions per run`,
        unit: 'xacts/run',
        ...perRun(c.db.xacts),
        note: `pg_stat_database of the bench database (conversation creation included); rows written ${(c.db.writes / n).toFixed(1)}/run`,
      },
      {
        name: `${mode.label}: write system calls per run, API + worker + Postgres + Redis`,
        unit: 'writes/run',
        ...perRun(c.writes.api + c.writes.worker + c.writes.postgres + c.writes.redis),
        note: `api ${(c.writes.api / n).toFixed(1)}, worker ${(c.writes.worker / n).toFixed(1)}, postgres ${(c.writes.postgres / n).toFixed(1)}, redis ${(c.writes.redis / n).toFixed(1)}`,
      },
    );
  }
  results.push(
    delayResult(
      `${mode.label}: delta delay (model wrote it → client read it), instant model`,
      w.loaded.timings,
      `under the window's load (${CLIENTS} clients)`,
    ),
  );
  return results;
}

/** Completion as a multiple of the model's own time, and delta delays, of a model-pace phase. */
function pacedResults(mode: Mode, r: AtOnce<Sample>, ideal: Ideal, what: string): BenchResult[] {
  const first = summarize(r.ok.map((s) => s.first));
  return [
    {
      name: `${mode.label}: ${what} at the model's pace, run completed ÷ the model's own time`,
      unit: '×',
      ...timesModel(r.ok, ideal),
      note: `${atOnceNote(r)}; the model's own time per piece size is (c)'s median with ${PACED} at once (${(Math.min(...ideal.values()) / 1000).toFixed(2)}–${(Math.max(...ideal.values()) / 1000).toFixed(2)} s); first token median ${first.median.toFixed(0)} ms, p99 ${first.p99.toFixed(0)} ms`,
    },
    delayResult(
      `${mode.label}: delta delay (model wrote it → client read it), ${what} at the model's pace`,
      r.ok,
      atOnceNote(r),
    ),
  ];
}

async function startMode(key: ModeKey, services: Services): Promise<Mode> {
  if (key === 'c') return bareMode(services);
  if (key === 'd') return handServerMode(services);
  if (key === 'a') return platformMode('a', await startEmbedded(services, MODELS));
  return platformMode('b', await startSeparate(services, MODELS));
}

export async function run(): Promise<BenchResult[]> {
  const log = (message: string) => process.stdout.write(`  [streaming] ${message}\n`);
  const services = await startServices();
  const results: BenchResult[] = [];
  const baselines: Partial<Record<'c' | 'd', Window>> = {};
  let ideal: Ideal = new Map();
  try {
    for (const key of ['c', 'd', 'a', 'b'] as const) {
      if (key !== 'c' && !MODES.includes(key)) continue;
      const mode = await startMode(key, services);
      let own: AtOnce<Sample> | undefined;
      try {
        if (key === 'c') {
          log(`${mode.label}: the model's own time (${PACED} at once)`);
          own = await pacedAtOnce(mode, PACED, false);
          ideal = idealOf(own.ok);
          if (!MODES.includes('c')) continue;
        }
        log(`${mode.label}: instant window`);
        const w = await instantWindow(mode, services);
        results.push(...windowResults(mode, w, baselines));
        if (key === 'c' || key === 'd') baselines[key] = w;
        log(`${mode.label}: ${PACED} at once, model's pace`);
        // (c)'s own light phase is the yardstick itself (its median ratio is 1 by construction).
        const light = own ?? (await pacedAtOnce(mode, PACED, false));
        results.push(...pacedResults(mode, light, ideal, `${PACED} at once`));
        if (CONVERSATIONS > 0 && CONCURRENT_MODES.includes(key)) {
          log(`${mode.label}: ${CONVERSATIONS} at once, model's pace`);
          const many = await pacedAtOnce(mode, CONVERSATIONS, true);
          results.push(...pacedResults(mode, many, ideal, `${CONVERSATIONS} at once`));
          if (Object.keys(mode.rss).length > 0) results.push(...memoryPerConversation(mode.label, many));
        }
      } finally {
        await mode.stop();
      }
    }
  } finally {
    await services.stop();
  }
  return results;
}

// `node bench/streaming.bench.ts` prints the figures on its own.
if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.name}: median ${r.median.toFixed(2)} ${r.unit}, p99 ${r.p99.toFixed(2)}${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''}${r.note ? ` (${r.note})` : ''}`,
    );
  }
}
