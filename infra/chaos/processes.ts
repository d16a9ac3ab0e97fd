/**
 * The chaos suite's supervisor: starts the API and worker processes (`node apps/…/main.ts`, as
 * the containers do), keeps their last log lines, kills them on request and starts them again as
 * a process supervisor would, and records every exit it did not cause.
 *
 * @example
 * const sup = createSupervisor({ env, onLog });
 * await sup.start('api', 'api', apiEnv);
 * await sup.kill('api', 'SIGKILL');
 * await sup.restart('api');
 * await sup.stopAll();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, scriptEntry } from '../local-topology.ts';
import { commandExists } from './commands.ts';

export type Role = 'api' | 'worker';

/** An exit of a supervised process, expected (the suite killed it) or not. */
export interface ProcessExit {
  name: string;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The signal the suite sent, when it caused this exit. */
  killedWith?: NodeJS.Signals;
  at: number;
  /** The process's last log lines (for an unexpected exit's evidence). */
  lastLines: string[];
}

interface Managed {
  name: string;
  role: Role;
  env: Record<string, string>;
  child: ChildProcess;
  log: string[];
  exited: Promise<void>;
  killedWith?: NodeJS.Signals;
  /** This process (not an earlier one of the same name) logged `worker started`. */
  started: boolean;
}

export interface Supervisor {
  start(name: string, role: Role, env: Record<string, string>): Promise<void>;
  /** Sends `signal` and waits (bounded) for the exit; the exit is recorded as the suite's. */
  kill(name: string, signal: NodeJS.Signals): Promise<void>;
  /** Starts a stopped process again with its environment. */
  restart(name: string): Promise<void>;
  /** Every exit so far. */
  exits: ProcessExit[];
  /** A process's last log lines. */
  logTail(name: string): string[];
  stopAll(): Promise<void>;
}

/** Generous: on a busy 2-core machine a process takes 20-60 s to load its modules. */
const READY_MS = 180_000;
const KEEP_LINES = 300;

export function createSupervisor(options: {
  onLog?: (name: string, line: string) => void;
  /** Restart a process that exited unexpectedly after this long (default 1000 ms). */
  restartDelayMs?: number;
}): Supervisor {
  const managed = new Map<string, Managed>();
  const exits: ProcessExit[] = [];
  let stopping = false;
  const killAll = () => {
    for (const m of managed.values()) if (alive(m.child)) m.child.kill('SIGKILL');
  };
  // The children must not outlive the suite, also when it dies of an error or a signal.
  process.once('exit', killAll);

  const launch = (name: string, role: Role, env: Record<string, string>): Managed => {
    const entry = join(repoRoot, scriptEntry(role === 'api' ? 'start:api' : 'start:worker'));
    const [file, args] = withParentDeathSignal([process.execPath, entry]);
    const child = spawn(file, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = managed.get(name)?.log ?? [];
    const m: Managed = { name, role, env, child, log, exited: Promise.resolve(), started: false };
    m.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        exits.push({
          name,
          pid: child.pid ?? -1,
          code,
          signal,
          ...(m.killedWith ? { killedWith: m.killedWith } : {}),
          at: Date.now(),
          lastLines: log.slice(-15),
        });
        done();
        // A supervisor starts a crashed process again; the crash stays in `exits` as a finding.
        if (!m.killedWith && !stopping)
          setTimeout(() => {
            if (!stopping && managed.get(name) === m) void startManaged(name, role, env).catch(() => {});
          }, options.restartDelayMs ?? 1000);
      }),
    );
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          log.push(line);
          if (line.includes('worker started')) m.started = true;
          if (log.length > KEEP_LINES) log.shift();
          options.onLog?.(name, line);
        }
      });
    }
    managed.set(name, m);
    return m;
  };

  const startManaged = async (name: string, role: Role, env: Record<string, string>) => {
    const m = launch(name, role, env);
    await waitReady(m);
  };

  return {
    exits,
    start: startManaged,
    async kill(name, signal) {
      const m = managed.get(name);
      if (!m || !alive(m.child)) return;
      m.killedWith = signal;
      m.child.kill(signal);
      // A SIGTERM'd worker finishes its step first (SHUTDOWN_DEADLINE_MS); past that, a supervisor kills.
      const timer = setTimeout(() => m.child.kill('SIGKILL'), 40_000);
      await m.exited;
      clearTimeout(timer);
    },
    async restart(name) {
      const m = managed.get(name);
      if (!m) throw new Error(`no process ${name}`);
      if (alive(m.child)) return;
      await startManaged(name, m.role, m.env);
    },
    logTail: (name) => [...(managed.get(name)?.log ?? [])],
    async stopAll() {
      stopping = true;
      await Promise.all(
        [...managed.values()].map(async (m) => {
          if (!alive(m.child)) return;
          m.killedWith = 'SIGTERM';
          m.child.kill('SIGTERM');
          const timer = setTimeout(() => m.child.kill('SIGKILL'), 15_000);
          await m.exited;
          clearTimeout(timer);
        }),
      );
      process.removeListener('exit', killAll);
    },
  };
}

const setpriv = commandExists('setpriv');

/**
 * Linux `setpriv --pdeathsig KILL` (it execs, so the pid stays the program's): the kernel kills
 * the child when the suite dies, even of a SIGKILL that runs no exit handler.
 */
function withParentDeathSignal(argv: string[]): [string, string[]] {
  return setpriv ? ['setpriv', ['--pdeathsig', 'KILL', '--', ...argv]] : [argv[0]!, argv.slice(1)];
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The API is ready when /readyz answers 200; a worker when it logs `worker started`. */
async function waitReady(m: Managed): Promise<void> {
  const until = Date.now() + READY_MS;
  const url = m.role === 'api' ? `http://127.0.0.1:${m.env.PORT}/readyz` : undefined;
  for (;;) {
    if (!alive(m.child)) throw new Error(`${m.name} exited while starting:\n${m.log.slice(-20).join('\n')}`);
    if (url) {
      const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return;
    } else if (m.started) {
      return;
    }
    if (Date.now() > until) throw new Error(`${m.name} not ready in ${READY_MS} ms:\n${m.log.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
