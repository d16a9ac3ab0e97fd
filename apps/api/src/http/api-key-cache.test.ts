import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiKeyRecord, Tenant } from '@agentry/db';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiConfig } from '../config.ts';
import { type RunningPlatform, startPlatform } from '../platform.ts';
import { ADMIN_TOKEN, call, createTenant } from '../test-support/harness.ts';
import { createApiKeyCache, type FoundApiKey } from './api-key-cache.ts';
import { hashKey } from './auth.ts';

function found(tenantId: string, keyId = `key-${tenantId}`): FoundApiKey {
  return { key: { id: keyId, tenantId } as ApiKeyRecord, tenant: { id: tenantId } as Tenant };
}

/** A loader answering from `rows`, counting calls; `hold()` makes the next calls wait for `release()`. */
function loader(rows: Map<string, FoundApiKey>) {
  let held: Array<() => void> | undefined;
  const state = {
    calls: 0,
    load: async (hash: string) => {
      state.calls++;
      const answer = rows.get(hash);
      if (held) await new Promise<void>((resolve) => held!.push(resolve));
      return answer;
    },
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const resume of waiting) resume();
    },
  };
  return state;
}

describe('API key cache', () => {
  it('answers a found key from memory until its TTL, and never remembers a miss', async () => {
    let now = 0;
    const rows = new Map([['h1', found('t1')]]);
    const db = loader(rows);
    const cache = createApiKeyCache({ load: db.load, ttlMs: 1000, now: () => now });
    expect(await cache.find('h1')).toEqual(found('t1'));
    expect(await cache.find('h1')).toEqual(found('t1'));
    expect(db.calls).toBe(1);
    expect(await cache.find('nope')).toBeUndefined();
    rows.set('nope', found('t2'));
    expect(await cache.find('nope')).toEqual(found('t2')); // created since: works at once
    now = 1000;
    rows.delete('h1');
    expect(await cache.find('h1')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, loads: 4 });
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const rows = new Map(['a', 'b', 'c'].map((h) => [h, found(h)]));
    const db = loader(rows);
    const cache = createApiKeyCache({ load: db.load, maxEntries: 2 });
    for (const h of ['a', 'b', 'c']) await cache.find(h);
    expect(cache.stats().size).toBe(2);
    await cache.find('c');
    await cache.find('b');
    expect(db.calls).toBe(3);
    await cache.find('a');
    expect(db.calls).toBe(4);
  });

  it("drops one tenant's entries on invalidateTenant, everything on clear", async () => {
    const rows = new Map([
      ['a1', found('a', 'k1')],
      ['a2', found('a', 'k2')],
      ['b1', found('b')],
    ]);
    const db = loader(rows);
    const cache = createApiKeyCache({ load: db.load });
    for (const h of rows.keys()) await cache.find(h);
    cache.invalidateTenant('a');
    expect(cache.stats().size).toBe(1);
    rows.delete('a1');
    expect(await cache.find('a1')).toBeUndefined();
    expect(await cache.find('b1')).toEqual(found('b'));
    expect(db.calls).toBe(4);
    cache.clear();
    expect(cache.stats().size).toBe(0);
  });

  it('does not keep what a lookup read before an invalidation, nor let later requests share it', async () => {
    const rows = new Map([['h', found('t')]]);
    const db = loader(rows);
    const cache = createApiKeyCache({ load: db.load });
    db.hold();
    const early = cache.find('h');
    const sharing = cache.find('h'); // the same lookup
    expect(db.calls).toBe(1);
    rows.delete('h'); // revoked, committed…
    cache.invalidateTenant('t'); // …and heard while the early lookup is still out
    const late = cache.find('h'); // must not join the early lookup
    expect(db.calls).toBe(2);
    db.release();
    expect(await early).toEqual(found('t')); // it raced the revocation: its own answer stands
    expect(await sharing).toEqual(found('t'));
    expect(await late).toBeUndefined();
    expect(await cache.find('h')).toBeUndefined();
    expect(cache.stats().size).toBe(0);
  });

  it('caches nothing while suspended (changes may go unheard), and again once resumed', async () => {
    const rows = new Map([['h', found('t')]]);
    const db = loader(rows);
    const cache = createApiKeyCache({ load: db.load });
    await cache.find('h');
    cache.suspend();
    expect(cache.stats()).toMatchObject({ size: 0, caching: false });
    await cache.find('h');
    await cache.find('h');
    expect(db.calls).toBe(3);
    db.hold();
    const during = cache.find('h');
    cache.resume(); // a lookup from before the resume is not kept either
    db.release();
    await during;
    expect(cache.stats()).toMatchObject({ size: 0, caching: true });
    await cache.find('h');
    await cache.find('h');
    expect(db.calls).toBe(5);
  });
});

/** Polls `probe` until it answers `status`; the milliseconds it took (NOTIFY is asynchronous). */
async function msUntilStatus(probe: () => Promise<{ status: number }>, status: number, withinMs = 2_000) {
  const started = performance.now();
  for (;;) {
    if ((await probe()).status === status) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`still not ${status} after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('API key cache in the embedded mode (PGlite, one process)', () => {
  let dir: string;
  let embedded: { platform: RunningPlatform };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentry-key-cache-'));
    const env = { PORT: '0', DATA_DIR: dir, PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' };
    embedded = { platform: await startPlatform(readApiConfig(env, true)) };
  }, 60_000);
  afterAll(async () => {
    await embedded?.platform.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers repeated requests from memory and forgets a key once it is revoked or its tenant suspended', async () => {
    const cache = embedded.platform.apiKeyCache!;
    const tenant = (await call(embedded, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'E' } })).json;
    const admin = tenant.api_key.key;
    const created = await call(embedded, 'POST', '/v1/api-keys', { key: admin, body: { kind: 'secret' } });
    const before = cache.stats();
    for (let i = 0; i < 3; i++)
      expect((await call(embedded, 'GET', '/v1/agents', { key: created.json.key })).status).toBe(200);
    expect(cache.stats().hits - before.hits).toBe(2);
    expect(cache.stats().loads - before.loads).toBe(1);

    await call(embedded, 'DELETE', `/v1/api-keys/${created.json.id}`, { key: admin });
    expect((await call(embedded, 'GET', '/v1/agents', { key: created.json.key })).status).toBe(401);

    expect((await call(embedded, 'GET', '/v1/agents', { key: admin })).status).toBe(200);
    await call(embedded, 'PATCH', `/v1/tenants/${tenant.id}`, { key: ADMIN_TOKEN, body: { status: 'suspended' } });
    expect((await call(embedded, 'GET', '/v1/agents', { key: admin })).status).toBe(401);
  });
});

describe.runIf(testDatabaseKinds().includes('postgres'))('API key cache across API processes (Postgres)', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  let a: { platform: RunningPlatform };
  let b: { platform: RunningPlatform };
  /** No cache (API_KEY_CACHE_TTL_MS=0). */
  let uncached: { platform: RunningPlatform };
  let owner: postgres.Sql;

  const start = async (env: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-key-cache-'));
    dirs.push(dir);
    const config = readApiConfig(
      {
        PORT: '0',
        DATA_DIR: dir,
        DATABASE_URL: database.url!,
        PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
        LOG_LEVEL: 'silent',
        ...env,
      },
      true,
    );
    return { platform: await startPlatform(config) };
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // Each has its own database connections (and listener), as separate processes would.
    [a, b, uncached] = await Promise.all([start(), start(), start({ API_KEY_CACHE_TTL_MS: '0' })]);
    owner = postgres(database.url!, { max: 1, onnotice: () => {} });
    await owner`select set_config('app.system', 'on', false)`;
  }, 60_000);
  afterAll(async () => {
    await owner?.end({ timeout: 5 });
    await Promise.all([a, b, uncached].map((p) => p?.platform.close()));
    await database?.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const agents = (on: { platform: RunningPlatform }, key: string) => call(on, 'GET', '/v1/agents', { key });
  /** A key of a new tenant, used (so cached) on both instances. */
  const cachedEverywhere = async () => {
    const key = await createTenant(a);
    for (const on of [a, b, a, b]) expect((await agents(on, key)).status).toBe(200);
    return key;
  };

  it('stops a key revoked through one instance on the other within milliseconds', async () => {
    const admin = await cachedEverywhere();
    const created = await call(a, 'POST', '/v1/api-keys', { key: admin, body: { kind: 'secret', name: 'temp' } });
    const temp = created.json.key;
    for (const on of [a, b, a, b]) expect((await agents(on, temp)).status).toBe(200);
    expect((await call(a, 'DELETE', `/v1/api-keys/${created.json.id}`, { key: admin })).status).toBe(200);
    expect((await agents(a, temp)).status).toBe(401);
    expect(await msUntilStatus(() => agents(b, temp), 401)).toBeLessThan(2_000);
    expect((await agents(b, admin)).status).toBe(200); // the tenant's other key still works
  });

  it('stops every key of a tenant suspended through the operator route, and lets them work again', async () => {
    const key = await cachedEverywhere();
    const id = await tenantOf(key);
    const suspend = await call(a, 'PATCH', `/v1/tenants/${id}`, { key: ADMIN_TOKEN, body: { status: 'suspended' } });
    expect(suspend.status).toBe(200);
    expect((await agents(a, key)).status).toBe(401);
    expect(await msUntilStatus(() => agents(b, key), 401)).toBeLessThan(2_000);
    await call(b, 'PATCH', `/v1/tenants/${id}`, { key: ADMIN_TOKEN, body: { status: 'active' } });
    expect((await agents(b, key)).status).toBe(200); // a miss is never remembered
    expect((await agents(a, key)).status).toBe(200);
  });

  it('holds a key to scopes changed by plain SQL (no API involved) on every instance', async () => {
    const key = await cachedEverywhere();
    const id = await tenantOf(key);
    await owner`update api_keys set scopes = '["agents:write"]'::jsonb where tenant_id = ${id}`;
    for (const on of [a, b]) {
      const denied = await msUntilStatus(() => agents(on, key), 403);
      expect(denied).toBeLessThan(2_000);
      expect((await agents(on, key)).json.code).toBe('insufficient_scope');
    }
  });

  it('answers a cached key without asking the database; TTL 0 asks every time', async () => {
    expect(uncached.platform.apiKeyCache).toBeUndefined();
    const key = await cachedEverywhere();
    expect((await agents(uncached, key)).status).toBe(200);
    const id = await tenantOf(key);
    // Revoke it behind the triggers' back (replica mode skips them): only an instance that asks
    // the database can notice.
    await owner.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update api_keys set revoked_at = now() where tenant_id = ${id}`;
    });
    for (const on of [a, b]) expect((await agents(on, key)).status).toBe(200);
    expect((await agents(uncached, key)).status).toBe(401);
    // Any noticed change of the tenant makes the cached instances ask again.
    await owner`update tenants set name = 'renamed' where id = ${id}`;
    for (const on of [a, b]) expect(await msUntilStatus(() => agents(on, key), 401)).toBeLessThan(2_000);
  });

  /** The tenant of a key, read from the database. */
  async function tenantOf(key: string): Promise<string> {
    const [row] = await owner`select tenant_id from api_keys where key_hash = ${hashKey(key)}`;
    return row!.tenant_id as string;
  }
});
