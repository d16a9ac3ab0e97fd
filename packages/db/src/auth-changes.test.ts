import net from 'node:net';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTH_CHANGES_CHANNEL,
  apiKeys,
  createApiKey,
  createTenantWithKey,
  type Database,
  deleteTenant,
  listenForAuthChanges,
  newId,
  openDatabase,
  revokeApiKey,
  touchApiKey,
  updateTenant,
  withTenantScope,
} from './index.ts';

/** What a listener heard, in order: tenant ids, `reset` and `lost`. */
function recorder() {
  const heard: string[] = [];
  const waiters: Array<() => void> = [];
  const push = (event: string) => {
    heard.push(event);
    for (const wake of waiters.splice(0)) wake();
  };
  return {
    heard,
    handlers: { changed: push, reset: () => push('reset'), lost: () => push('lost') },
    /** Waits until `event` was heard (NOTIFY arrives asynchronously on Postgres), then forgets everything so far. */
    async until(event: string, timeoutMs = 10_000): Promise<string[]> {
      const deadline = Date.now() + timeoutMs;
      while (!heard.includes(event)) {
        if (Date.now() > deadline) throw new Error(`never heard ${event}; heard ${JSON.stringify(heard)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return heard.splice(0);
    },
  };
}

async function newTenant(db: TestDatabase['db']) {
  return createTenantWithKey(db, { name: 'T', key: { prefix: 'sk_t', hash: `hash-${newId()}` } });
}

describe.each(testDatabaseKinds())('auth change notifications on %s', (kind) => {
  let database: TestDatabase;
  let stop: () => Promise<void>;
  const events = recorder();
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    stop = await listenForAuthChanges(database, events.handlers);
  });
  afterAll(async () => {
    await stop?.();
    await database?.destroy();
  });

  /** A change nobody cares about but the listener hears: what came before it has arrived too. */
  const marker = async () => {
    const { tenant } = await newTenant(database.db);
    return events.until(tenant.id);
  };

  it('names the tenant when a key is created, revoked or given other scopes, and when the tenant changes', async () => {
    const { tenant, apiKey } = await newTenant(database.db);
    expect(await events.until(tenant.id)).toEqual([tenant.id]);

    const second = await createApiKey(database.db, {
      tenantId: tenant.id,
      kind: 'secret',
      prefix: 'sk_2',
      hash: `hash-${newId()}`,
      scopes: ['agents:read'],
    });
    expect(await events.until(tenant.id)).toEqual([tenant.id]);

    await withTenantScope(database.db, tenant.id, (tx) =>
      tx
        .update(apiKeys)
        .set({ scopes: ['agents:read', 'agents:write'] })
        .where(sql`${apiKeys.id} = ${second.id}`),
    );
    expect(await events.until(tenant.id)).toEqual([tenant.id]);

    await revokeApiKey(database.db, tenant.id, apiKey.id);
    expect(await events.until(tenant.id)).toEqual([tenant.id]);

    await updateTenant(database.db, tenant.id, { status: 'suspended' });
    expect(await events.until(tenant.id)).toEqual([tenant.id]);

    // The tenant and its keys (deleted by the cascade) in one transaction: one notification.
    await deleteTenant(database.db, tenant.id);
    expect(await events.until(tenant.id)).toEqual([tenant.id]);
  });

  it('stays silent for a last-used touch, an update that changes nothing and a rolled-back change', async () => {
    const { tenant, apiKey } = await newTenant(database.db);
    await events.until(tenant.id);

    await touchApiKey(database.db, tenant.id, apiKey.id, new Date());
    await revokeApiKey(database.db, tenant.id, apiKey.id);
    await events.until(tenant.id);
    await revokeApiKey(database.db, tenant.id, apiKey.id); // already revoked: nothing changes
    await updateTenant(database.db, tenant.id, { name: 'T' }); // the same name
    await withTenantScope(database.db, tenant.id, async (tx) => {
      await tx.update(apiKeys).set({ scopes: [] }).where(sql`${apiKeys.id} = ${apiKey.id}`);
      tx.rollback();
    }).catch(() => {});

    expect(await marker()).not.toContain(tenant.id);
  });

  it('refuses to start when its own probe does not come back (notifications cannot reach it)', async () => {
    // The real database, listening on a channel nobody notifies: as behind PgBouncer in transaction mode.
    const deaf: Database = {
      ...database,
      listen: (_channel, handlers) => database.listen('agentry_elsewhere', handlers),
    };
    await expect(listenForAuthChanges(deaf, events.handlers, { probeTimeoutMs: 300 })).rejects.toMatchObject({
      code: 'auth_notifications_unavailable',
    });
    expect(await marker()).toHaveLength(1); // and another listener's probe is no change to anyone
  });
});

describe.runIf(testDatabaseKinds().includes('postgres'))('auth change listener on Postgres, after a drop', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(() => database?.destroy());

  it('hears writes made outside the application, and a truncate as a reset', async () => {
    const events = recorder();
    const stop = await listenForAuthChanges(database, events.handlers);
    const marker = async () => {
      const { tenant } = await newTenant(database.db);
      return events.until(tenant.id);
    };
    const { tenant } = await newTenant(database.db);
    await events.until(tenant.id);
    const owner = postgres(database.url!, { max: 1, onnotice: () => {} });
    try {
      await owner`select set_config('app.system', 'on', false)`;
      await owner`update tenants set status = 'suspended' where id = ${tenant.id}`;
      expect(await events.until(tenant.id)).toEqual([tenant.id]);
      await owner`update api_keys set last_used_at = now() where tenant_id = ${tenant.id}`;
      expect(await marker()).not.toContain(tenant.id);
      await owner`truncate api_keys cascade`;
      expect(await events.until('reset')).toEqual(['reset']);
    } finally {
      await owner.end({ timeout: 5 });
      await stop();
    }
  });

  it('says so when its connection is ended, listens again and resets', async () => {
    const events = recorder();
    const stop = await listenForAuthChanges(database, events.handlers);
    try {
      const admin = postgres(database.url!, { max: 1, onnotice: () => {} });
      await admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = ${`agentry-listen-${AUTH_CHANGES_CHANNEL}`}`;
      await admin.end({ timeout: 5 });
      expect(await events.until('reset')).toEqual(['lost', 'reset']);
      const { tenant } = await newTenant(database.db);
      expect(await events.until(tenant.id)).toEqual([tenant.id]);
    } finally {
      await stop();
    }
  });

  it('keeps trying while the database cannot be reached', async () => {
    const proxy = await tcpProxy(new URL(database.url!));
    let proxied: Database | undefined;
    const events = recorder();
    try {
      proxied = await openDatabase({ kind: 'postgres', url: proxy.url, maxConnections: 1 });
      const stop = await listenForAuthChanges(proxied, events.handlers);
      await proxy.down();
      expect(await events.until('lost')).toEqual(['lost']);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // several refused attempts
      expect(events.heard).toEqual([]);
      await proxy.up();
      expect(await events.until('reset')).toEqual(['reset']);
      const { tenant } = await newTenant(database.db);
      expect(await events.until(tenant.id)).toEqual([tenant.id]);
      await stop();
    } finally {
      await proxied?.close();
      await proxy.close();
    }
  });
});

/** A TCP forwarder to the database that can cut every connection and refuse new ones for a while. */
async function tcpProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port = 0) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
    );
  const port = await listen();
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: url.toString(),
    async down() {
      const closed = closeServer();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async up() {
      await listen(port);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await closeServer();
    },
  };
}
