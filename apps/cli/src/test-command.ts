import type {
  Agent,
  AgentCreated,
  AgentList,
  AgentVersion,
  AgentVersionDetail,
  NewAgentVersionBody,
  NewTestRunBody,
  TestRun,
} from '@agentry/contract/schemas';
import { type ApiClient, ApiFailure, createApiClient } from './api-client.ts';
import { exitCode, type Io } from './io.ts';
import { loadValidConfig, readConfigFile } from './read-config-file.ts';
import { testRunReport } from './test-run-report.ts';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
const DEFAULT_TIMEOUT_SECONDS = 600;
/** A stream that keeps ending before the run does is given up on after this many reconnects. */
const MAX_RECONNECTS = 20;

/** The options of `agentry test`, as typed (numbers still text); unset ones fall back to the environment. */
export interface TestOptions {
  apiUrl?: string | undefined;
  key?: string | undefined;
  agent?: string | undefined;
  cases?: string | undefined;
  model?: string | undefined;
  judgeModel?: string | undefined;
  repetitions?: string | undefined;
  threshold?: string | undefined;
  timeout?: string | undefined;
  json: boolean;
}

/** The variables `agentry test` reads when an option is not given. */
export type CliEnv = Partial<Record<'AGENTRY_API_URL' | 'AGENTRY_API_KEY' | 'AGENTRY_AGENT_ID', string>>;

/** What is checked locally before the first request. */
interface Plan {
  file: string;
  document: unknown;
  hash: string;
  name: string;
  url: string;
  key: string;
  agentId: string | undefined;
  timeoutSeconds: number;
  run: Omit<NewTestRunBody, 'version'>;
}

/**
 * `agentry test <config> [--cases file] [--model …]`: runs an agent's test cases on the platform
 * against this config, for CI. The config is checked here first (exit 1, nothing sent), uploaded
 * as a draft version unless the agent's latest version has the same content hash, and tested;
 * each finished case prints a ✓/✗ line, then every failing expectation with what happened. Exit
 * 0 when the run passed, 1 when it failed (or errored, or was cancelled), 2 when the API cannot
 * be reached or refuses, the cases file cannot be used, or the run outlives `--timeout`.
 *
 * @example
 * await testCommand(['configs/order-status.json'], { json: false, cases: 'tests.json' }, process.env, io);
 */
export async function testCommand(positionals: string[], options: TestOptions, env: CliEnv, io: Io): Promise<number> {
  const planned = await plan(positionals, options, env, io);
  if (typeof planned === 'number') return planned;
  const signal = AbortSignal.timeout(planned.timeoutSeconds * 1000);
  const api = createApiClient({ url: planned.url, key: planned.key, signal });
  // With --json the run's JSON is the only thing on stdout; the progress goes to stderr.
  const say = options.json ? io.err : io.out;
  let started: TestRun | undefined;
  try {
    const { agent, version } = await agentVersion(api, planned, say);
    started = await api.call<TestRun>('POST', `/v1/agents/${agent.id}/test-runs`, { version, ...planned.run });
    const cases = `${started.case_count} case${started.case_count === 1 ? '' : 's'}`;
    say(`Testing ${agent.name} (agent ${agent.id}) version ${version}: ${cases}, model ${started.model}\n`);
    await follow(api, started, say);
    const run = await api.call<TestRun>('GET', runPath(started));
    if (options.json) io.out(`${JSON.stringify(run, null, 2)}\n`);
    else io.out(testRunReport(run));
    if (run.status === 'passed') return exitCode.ok;
    return run.status === 'queued' || run.status === 'running' ? exitCode.unreadable : exitCode.invalid;
  } catch (error) {
    if (error instanceof ApiFailure) return fail(io, error.message);
    if (!signal.aborted) throw error;
    if (started) await cancel(planned, started);
    const what = started ? `test run ${started.id} (cancelled)` : 'the API';
    return fail(io, `no verdict within --timeout ${planned.timeoutSeconds} s: gave up waiting for ${what}`);
  }
}

/** Everything that can be checked without the platform: the config, the cases file, the key, the numbers. */
async function plan(positionals: string[], options: TestOptions, env: CliEnv, io: Io): Promise<Plan | number> {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) {
    return fail(io, 'usage: agentry test <config> [--cases file] [--model agent|demo|provider/model] [--json]');
  }
  const numbers = readNumbers(options);
  if (typeof numbers === 'string') return fail(io, numbers);
  const loaded = await loadValidConfig(file, io);
  if (!loaded.ok) return loaded.code;
  const cases = options.cases === undefined ? undefined : await readCases(options.cases);
  if (typeof cases === 'string') return fail(io, cases);
  // `||`: CI sets a variable to '' when its secret is missing; that is as good as unset.
  const key = options.key || env.AGENTRY_API_KEY;
  if (!key) {
    return fail(io, 'no API key: set AGENTRY_API_KEY or pass --key (a secret key with agents:read and agents:write)');
  }
  const url = options.apiUrl || env.AGENTRY_API_URL || DEFAULT_API_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return fail(io, `--api-url / AGENTRY_API_URL is not an http(s) URL: ${url}`);
  }
  return {
    file,
    document: loaded.document,
    hash: loaded.hash,
    name: loaded.config.basic_settings.name,
    url,
    key,
    agentId: options.agent || env.AGENTRY_AGENT_ID || undefined,
    timeoutSeconds: numbers.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    run: {
      ...(options.model ? { model: options.model } : {}),
      ...(options.judgeModel ? { judge_model: options.judgeModel } : {}),
      ...(numbers.repetitions !== undefined ? { repetitions: numbers.repetitions } : {}),
      ...(numbers.threshold !== undefined ? { threshold: numbers.threshold } : {}),
      ...(cases ? { cases } : {}),
    },
  };
}

/** The numeric options, or a message naming the one that is not a number (ranges are the API's to check). */
function readNumbers(options: TestOptions): { repetitions?: number; threshold?: number; timeout?: number } | string {
  const read = (name: string, text: string | undefined, whole: boolean): number | undefined | string => {
    if (text === undefined) return undefined;
    const value = Number(text);
    const ok = text.trim() !== '' && (whole ? Number.isInteger(value) : Number.isFinite(value)) && value > 0;
    return ok ? value : `--${name} needs a ${whole ? 'whole ' : ''}number above 0, not "${text}"`;
  };
  const repetitions = read('repetitions', options.repetitions, true);
  const threshold = read('threshold', options.threshold, false);
  const timeout = read('timeout', options.timeout, false);
  for (const value of [repetitions, threshold, timeout]) if (typeof value === 'string') return value;
  return {
    ...(repetitions !== undefined ? { repetitions: repetitions as number } : {}),
    ...(threshold !== undefined ? { threshold: threshold as number } : {}),
    ...(timeout !== undefined ? { timeout: timeout as number } : {}),
  };
}

/**
 * The `--cases` file: an export document (`{"tests": […]}`, from `GET …/tests/export`) or a bare
 * array of cases; the cases themselves are checked by the API (issues at `/cases/<i>/…`).
 */
async function readCases(file: string): Promise<unknown[] | string> {
  const read = await readConfigFile(file);
  if (read.kind === 'unreadable') return `--cases ${file}: ${read.message}`;
  if (read.kind === 'invalid_json') return `--cases ${file}: ${read.issue.message}`;
  const document = read.document as { tests?: unknown };
  const cases = Array.isArray(document) ? document : document?.tests;
  if (!Array.isArray(cases)) {
    return `--cases ${file}: expected an array of cases or an export document {"tests": […]}`;
  }
  if (cases.length === 0) return `--cases ${file} has no cases`;
  return cases;
}

/**
 * The agent (`--agent`, else the one named as the config, else a new unpublished one) and the
 * version to test: the latest when its content hash is the config's (CI runs do not pile up
 * versions), else a new draft of the config.
 */
async function agentVersion(api: ApiClient, plan: Plan, say: Io['out']): Promise<{ agent: Agent; version: number }> {
  const agent = plan.agentId
    ? await api.call<Agent>('GET', `/v1/agents/${encodeURIComponent(plan.agentId)}`)
    : await agentNamed(api, plan.name);
  if (!agent) {
    const body: NewAgentVersionBody = { config: plan.document, publish: false };
    const created = await api.call<AgentCreated>('POST', '/v1/agents', body);
    say(`Created agent ${created.name} (${created.id}), unpublished, from ${plan.file}\n`);
    return { agent: created, version: created.version.version };
  }
  const latest = await api.call<AgentVersionDetail>('GET', `/v1/agents/${agent.id}/versions/${agent.latest_version}`);
  if (latest.content_hash === plan.hash) {
    say(`Version ${latest.version} of ${agent.name} already has this config: testing it\n`);
    return { agent, version: latest.version };
  }
  const body: NewAgentVersionBody = { config: plan.document, publish: false };
  const added = await api.call<AgentVersion>('POST', `/v1/agents/${agent.id}/versions`, body);
  say(`Uploaded ${plan.file} as version ${added.version} of ${agent.name} (a draft, not published)\n`);
  return { agent, version: added.version };
}

/** The tenant's agent with this name, if any; two of them is a question only `--agent` answers. */
async function agentNamed(api: ApiClient, name: string): Promise<Agent | undefined> {
  const found: Agent[] = [];
  let cursor: string | null = null;
  do {
    const page: AgentList = await api.call<AgentList>(
      'GET',
      `/v1/agents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    found.push(...page.data.filter((agent) => agent.name === name));
    cursor = page.next_cursor;
  } while (cursor);
  if (found.length > 1) {
    const ids = found.map((agent) => agent.id).join(', ');
    throw new ApiFailure(
      `${found.length} agents are named "${name}" (${ids}): say which with --agent or AGENTRY_AGENT_ID`,
    );
  }
  return found[0];
}

/** Prints a line per finished case from the run's event stream until it says the run ended. */
async function follow(api: ApiClient, run: TestRun, say: Io['out']): Promise<void> {
  let lastId: string | undefined;
  for (let reconnects = 0; reconnects <= MAX_RECONNECTS; reconnects++) {
    for await (const message of api.events(`${runPath(run)}/events`, lastId)) {
      if (message.id) lastId = message.id;
      const event = eventData(message.data);
      if (event.type === 'test-case') say(`${event.passed ? '✓' : '✗'} ${event.name}\n`);
      if (event.type === 'test-run-finished') return;
    }
  }
  throw new ApiFailure(`the event stream of test run ${run.id} kept ending before the run did`);
}

function eventData(data: string): { type?: string; name?: string; passed?: boolean } {
  try {
    return JSON.parse(data);
  } catch {
    throw new ApiFailure(`the test run's event stream sent something that is not JSON: ${data.slice(0, 100)}`);
  }
}

/** Best effort, on a deadline of its own: a run nobody waits for should not hold the tenant's test slot. */
async function cancel(plan: Plan, run: TestRun): Promise<void> {
  const api = createApiClient({ url: plan.url, key: plan.key, signal: AbortSignal.timeout(5000) });
  await api.call('POST', `${runPath(run)}/cancel`).catch(() => undefined);
}

function runPath(run: TestRun): string {
  return `/v1/agents/${run.agent_id}/test-runs/${run.id}`;
}

function fail(io: Io, message: string): number {
  io.err(`✗ ${message}\n`);
  return exitCode.unreadable;
}
