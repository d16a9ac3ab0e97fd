import type { RedisOptions } from 'bullmq';

/** ioredis options from a `redis://` or `rediss://` URL, so BullMQ can own (and close) its connections. */
export function redisOptionsFromUrl(url: string, extra: RedisOptions = {}): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    db,
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    ...extra,
  };
}
