import { randomBytes } from 'node:crypto';
import { compileAgent, loadAgentConfig, type ToolContext } from '@agentry/config';
import {
  availableServices,
  deleteRedisKeys,
  freePort,
  type RecordingServer,
  startRecordingServer,
  testServices,
} from '@agentry/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEgressPolicy } from './egress.ts';
import { createHttpToolExecutor } from './http-tool-executor.ts';
import { createMemoryToolResultCache } from './memory-tool-result-cache.ts';
import { createRedisToolResultCache } from './redis-tool-result-cache.ts';
import { storableSeconds, type ToolCacheBounds, type ToolCacheKey, type ToolResultCache } from './tool-result-cache.ts';

/**
 * Cached tool results (issue 19): one suite, run against the memory cache (the embedded mode, with
 * an injected clock) and the Redis cache (the worker's, with Redis's real TTLs), through the real
 * executor and a real recording endpoint.
 */

interface Subject {
  cache: ToolResultCache;
  /** Lets `seconds` pass for the cache. */
  elapse(seconds: number): Promise<void>;
  /** Every key and value the cache holds in its backing store (Redis only). */
  dump?(): Promise<string>;
}

const prefix = `test-${randomBytes(6).toString('hex')}`;
const subjects: Array<[string, (bounds?: ToolCacheBounds) => Subject]> = [
  [
    'memory',
    (bounds = {}) => {
      let now = 1_700_000_000_000;
      const cache = createMemoryToolResultCache({ ...bounds, now: () => now });
      return {
        cache,
        elapse: async (seconds) => {
          now += seconds * 1000;
        },
      };
    },
  ],
];
if (availableServices().redis) {
  subjects.push([
    'redis',
    (bounds = {}) => {
      const cache = createRedisToolResultCache({ redisUrl: testServices.redisUrl, prefix, ...bounds });
      return {
        cache,
        elapse: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
        dump: async () => {
          const redis = new Redis(testServices.redisUrl);
          try {
            const keys = await redis.keys(`${prefix}:*`);
            const values = await Promise.all(
              keys.map(async (k) =>
                (await redis.type(k)) === 'string' ? redis.get(k) : JSON.stringify(await redis.zrange(k, 0, -1)),
              ),
            );
            return JSON.stringify([keys, values]);
          } finally {
            redis.disconnect();
          }
        },
      };
    },
  ]);
} else {
  console.warn('[http-tools] NOTICE: Redis unavailable, the Redis tool result cache suite is skipped.');
}

const SECRET = `sk-live-${randomBytes(12).toString('hex')}`;
const egress = createEgressPolicy({ allowlist: ['127.0.0.1'] });
let endpoint: RecordingServer;

beforeAll(async () => {
  endpoint = await startRecordingServer();
});
afterAll(async () => {
  await endpoint.close();
  if (availableServices().redis) await deleteRedisKeys(prefix);
});
beforeEach(() => {
  endpoint.reset();
  // Echoes the secret header, as careless endpoints do: the stored output must hold it masked.
  endpoint.respondWith((req) => ({ body: { path: req.path, auth: req.headers.authorization } }));
});

const tools = () => [
  {
    name: 'order',
    description: 'An order',
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
    endpoint: {
      url: `${endpoint.url}/orders/{{id}}`,
      headers: { Authorization: 'Bearer {{secrets.API_KEY}}' },
    },
    cache: { ttl: 1 },
  },
  {
    name: 'search',
    description: 'A search sent as POST',
    idempotent: true,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    endpoint: { url: `${endpoint.url}/search`, method: 'POST', body: { q: '{{q}}' } },
    cache: { ttl: 60 },
  },
  {
    name: 'live',
    description: 'Never cached',
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
    endpoint: { url: `${endpoint.url}/live/{{id}}` },
  },
];

function executorFor(cache: ToolResultCache, tenantId: string, onError?: (error: unknown) => void) {
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'Cache' }, tools: tools() });
  const context: ToolContext = { context: { tenantId, conversationId: 'c1' }, secrets: { API_KEY: SECRET } };
  return createHttpToolExecutor({
    agent: compileAgent(config, hash),
    context,
    egress,
    idempotencyKey: (call) => `run-1:${call.id}`,
    cache: { store: cache, tenantId, ...(onError ? { onError } : {}) },
  });
}

let callIds = 0;
const call = (name: string, args: Record<string, unknown>) => ({
  type: 'tool_call' as const,
  id: `call-${++callIds}`,
  name,
  arguments: args,
});
const tenant = () => `tenant-${randomBytes(6).toString('hex')}`;

describe.each(subjects)('cached tool results: %s', (_name, make) => {
  it('reuses the response of an identical request within the TTL and marks it cached', async () => {
    const { cache } = make();
    const tools = executorFor(cache, tenant());
    const first = await tools.execute(call('order', { id: 'A1' }));
    const second = await tools.execute(call('order', { id: 'A1' }));
    expect(endpoint.requests).toHaveLength(1);
    expect(first.meta?.cached).toBeUndefined();
    expect(second).toMatchObject({ isError: false, output: first.output, meta: { cached: true, status: 200 } });
    // Another argument is another request.
    await tools.execute(call('order', { id: 'B2' }));
    expect(endpoint.requests).toHaveLength(2);
    // A POST search declared idempotent is cached on its body.
    await tools.execute(call('search', { q: 'shoes' }));
    await tools.execute(call('search', { q: 'shoes' }));
    await tools.execute(call('search', { q: 'boots' }));
    expect(endpoint.requests.map((r) => r.path)).toEqual(['/orders/A1', '/orders/B2', '/search', '/search']);
    await cache.close();
  });

  it('calls the endpoint again once the TTL has passed', async () => {
    const { cache, elapse } = make();
    const tools = executorFor(cache, tenant());
    await tools.execute(call('order', { id: 'T1' }));
    await elapse(1.2);
    const again = await tools.execute(call('order', { id: 'T1' }));
    expect(endpoint.requests).toHaveLength(2);
    expect(again.meta?.cached).toBeUndefined();
    await cache.close();
  });

  it('never shares a response between tenants', async () => {
    const { cache } = make();
    const [a, b] = [executorFor(cache, tenant()), executorFor(cache, tenant())];
    await a.execute(call('order', { id: 'S1' }));
    const other = await b.execute(call('order', { id: 'S1' }));
    expect(endpoint.requests).toHaveLength(2);
    expect(other.meta?.cached).toBeUndefined();
    expect((await a.execute(call('order', { id: 'S1' }))).meta?.cached).toBe(true);
    expect((await b.execute(call('order', { id: 'S1' }))).meta?.cached).toBe(true);
    expect(endpoint.requests).toHaveLength(2);
    await cache.close();
  });

  it('stores nothing the endpoint marks no-store or no-cache, nor errors, nor tools without cache', async () => {
    const { cache } = make();
    const tools = executorFor(cache, tenant());
    endpoint.respondWith((req) => ({
      headers: { 'cache-control': req.path.endsWith('N1') ? 'private, no-store' : 'no-cache' },
      body: { path: req.path },
    }));
    for (const id of ['N1', 'N1', 'N2', 'N2']) await tools.execute(call('order', { id }));
    expect(endpoint.requests).toHaveLength(4);
    endpoint.respondWith(() => ({ status: 503, body: { error: 'busy' } }));
    await tools.execute(call('order', { id: 'E1' }));
    await tools.execute(call('order', { id: 'E1' }));
    expect(endpoint.requests).toHaveLength(6);
    endpoint.respondWith(() => ({ body: { ok: true } }));
    await tools.execute(call('live', { id: 'L1' }));
    await tools.execute(call('live', { id: 'L1' }));
    expect(endpoint.requests).toHaveLength(8);
    await cache.close();
  });

  it('keeps secrets out of the keys and values, and stores the masked output', async () => {
    const { cache, dump } = make();
    const seen: string[] = [];
    const recording: ToolResultCache = {
      get: (key) => {
        seen.push(JSON.stringify(key));
        return cache.get(key);
      },
      set: (key, value, ttl) => {
        seen.push(JSON.stringify([key, value]));
        return cache.set(key, value, ttl);
      },
      close: () => cache.close(),
    };
    const tools = executorFor(recording, tenant());
    const first = await tools.execute(call('order', { id: 'K1' }));
    const second = await tools.execute(call('order', { id: 'K1' }));
    expect(endpoint.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(first.output)).not.toContain(SECRET);
    expect(second.output).toEqual(first.output);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('\n')).not.toContain(SECRET);
    if (dump) {
      const stored = await dump();
      expect(stored).toContain('K1');
      expect(stored).not.toContain(SECRET);
    }
    await cache.close();
  });

  it('bounds the entries per tenant and the size of one entry', async () => {
    const { cache } = make({ maxEntriesPerTenant: 3, maxEntryBytes: 200 });
    const [a, b] = [tenant(), tenant()];
    const key = (tenantId: string, i: number): ToolCacheKey => ({ tenantId, digest: `digest-${i}` });
    await cache.set(key(b, 0), { status: 200, output: 'b' }, 60);
    for (let i = 0; i < 6; i++) await cache.set(key(a, i), { status: 200, output: `a${i}` }, 60);
    const kept = [];
    for (let i = 0; i < 6; i++) if (await cache.get(key(a, i))) kept.push(i);
    expect(kept).toEqual([3, 4, 5]);
    expect(await cache.get(key(b, 0))).toEqual({ status: 200, output: 'b' });
    await cache.set(key(b, 1), { status: 200, output: 'x'.repeat(300) }, 60);
    expect(await cache.get(key(b, 1))).toBeUndefined();
    await cache.close();
  });
});

describe('a cache that fails', () => {
  it('never fails the tool call: errors are reported and the endpoint is called', async () => {
    const errors: unknown[] = [];
    const broken: ToolResultCache = {
      get: () => Promise.reject(new Error('cache down')),
      set: () => Promise.reject(new Error('cache down')),
      close: async () => {},
    };
    const tools = executorFor(broken, tenant(), (error) => errors.push(error));
    const result = await tools.execute(call('order', { id: 'F1' }));
    expect(result).toMatchObject({ isError: false, meta: { status: 200 } });
    expect(errors).toHaveLength(2);
  });

  it('a Redis nobody answers on is a miss, not a failure', async () => {
    const port = await freePort();
    const cache = createRedisToolResultCache({ redisUrl: `redis://127.0.0.1:${port}`, prefix });
    const errors: unknown[] = [];
    const tools = executorFor(cache, tenant(), (error) => errors.push(error));
    for (let i = 0; i < 2; i++) {
      expect(await tools.execute(call('order', { id: 'R1' }))).toMatchObject({ isError: false, meta: { status: 200 } });
    }
    expect(endpoint.requests).toHaveLength(2);
    expect(errors.length).toBeGreaterThan(0);
    await cache.close();
  });
});

describe('storableSeconds', () => {
  it('follows Cache-Control', () => {
    expect(storableSeconds(300, null)).toBe(300);
    expect(storableSeconds(300, 'public, max-age=60')).toBe(60);
    expect(storableSeconds(30, 'max-age=600')).toBe(30);
    expect(storableSeconds(300, 'max-age=0')).toBe(0);
    expect(storableSeconds(300, 'No-Store')).toBe(0);
    expect(storableSeconds(300, 'no-cache')).toBe(0);
    expect(storableSeconds(300, 'private')).toBe(300);
  });
});
