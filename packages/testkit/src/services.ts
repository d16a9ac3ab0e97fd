import net from 'node:net';

/** Where the test suite finds the machine's services (overridable for other machines). */
export const testServices = {
  postgresUrl: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** Resolves true when a TCP connection to host:port opens within `timeoutMs`. */
export function canConnect(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Set by the global setup: which real services this test run has. */
export function availableServices(): { postgres: boolean; redis: boolean } {
  return {
    postgres: process.env.AGENTRY_TEST_HAS_POSTGRES === '1',
    redis: process.env.AGENTRY_TEST_HAS_REDIS === '1',
  };
}

/** Deletes every Redis key under a test's random prefix (BullMQ leaves its keys behind). */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(testServices.redisUrl);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
