import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1 (for a private server a test starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether `redis-server` can be started here (for {@link startPrivateRedis}); when it cannot, a
 * notice naming `suite` says that its tests are skipped — never a silent pass.
 *
 * @example
 * describe.skipIf(!redisServerInstalled('run-control-outage'))('run control across a Redis outage', () => {});
 */
export function redisServerInstalled(suite: string): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`[${suite}] NOTICE: redis-server not installed: its private-Redis tests are SKIPPED.`);
    return false;
  }
}

/**
 * A private redis-server on `port` (no persistence), so fault tests can stop and restart Redis
 * without touching the machine's shared one. Resolves once it accepts connections.
 *
 * @example
 * const port = await freePort();
 * const redis = await startPrivateRedis(port);
 * await stopPrivateRedis(redis);
 */
export async function startPrivateRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${out}`)));
  });
  return child;
}

/** Kills a private redis-server (SIGKILL: a crash, not a clean shutdown) and waits for it to exit. */
export async function stopPrivateRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
