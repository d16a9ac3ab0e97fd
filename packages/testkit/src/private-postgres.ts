import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect } from './services.ts';

/**
 * A private PostgreSQL server for fault tests: its own data directory (initdb) on a spare port,
 * run as the `postgres` OS user when this process is root (Postgres refuses to run as root), so a
 * test can stop, kill and restart it without touching the machine's shared server.
 *
 * @example
 * const pg = await startPrivatePostgres(await freePort());
 * await pg.restart('fast');
 * await pg.destroy();
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** `pg_ctl stop -m <mode>`: `fast` (clients are disconnected), `immediate` (a crash). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** Starts a stopped server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl restart -m <mode>`. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/** Where Debian keeps a Postgres version's programs (`initdb`, `pg_ctl`), newest first; else PATH. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** True when this machine can run a private Postgres (initdb and pg_ctl are installed). */
export function canStartPrivatePostgres(): boolean {
  return postgresBinDir() !== undefined;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a Postgres program as the `postgres` user when we are root. */
function runAs(bin: string, args: string[]): string {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Creates and starts a private Postgres on `port`. No fsync (the OS keeps what a killed server
 * wrote, so an immediate stop still loses no commit; only a machine crash would); commits wait for
 * their WAL write as in production. `max_connections` 200 leaves room for several processes' pools.
 */
export async function startPrivatePostgres(
  port: number,
  options: { maxConnections?: number } = {},
): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('initdb not found (install postgresql)');
  const dataDir = mkdtempSync(join(tmpdir(), 'agentry-pg-'));
  if (isRoot()) execFileSync('chown', ['postgres:postgres', dataDir]);
  runAs(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options_ = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${dataDir}'`,
    `-c max_connections=${options.maxConnections ?? 200}`,
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pgCtl = (args: string[]) => runAs(join(bin, 'pg_ctl'), ['-D', dataDir, ...args]);
  const start = async () => {
    pgCtl(['-o', options_, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', 'start']);
    await waitUntilAccepting(url);
  };
  const stop = async (mode: 'smart' | 'fast' | 'immediate' = 'fast') => {
    try {
      pgCtl(['-m', mode, '-w', '-t', '60', 'stop']);
    } catch (error) {
      // Already stopped is fine; anything else is the test's problem.
      if (
        !/not running|No such process|PID file .* does not exist/i.test(String((error as { stderr?: string }).stderr))
      ) {
        throw error;
      }
    }
  };
  await start();
  return {
    url,
    port,
    dataDir,
    stop,
    start,
    async restart(mode = 'fast') {
      await stop(mode);
      await start();
    },
    async destroy() {
      await stop('immediate');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAccepting(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await canConnect(url, 500))) {
    if (Date.now() > until) throw new Error(`private Postgres at ${url} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The postgres server processes of a private instance (for `kill -9` of one backend, say). */
export function postgresPid(dataDir: string): number | undefined {
  try {
    const text = runAs('cat', [join(dataDir, 'postmaster.pid')]);
    return Number(text.split('\n')[0]);
  } catch {
    return undefined;
  }
}
