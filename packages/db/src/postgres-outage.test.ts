import { canStartPrivatePostgres, freePort, type PrivatePostgres, startPrivatePostgres } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, type Database, openDatabase, withTenantScope } from './index.ts';

const can = canStartPrivatePostgres();
if (!can) console.warn('[postgres-outage] NOTICE: initdb not installed: driver outage tests are SKIPPED.');

/**
 * What the driver must do when its server goes away (the patched postgres-js, `patches/`): no
 * exception out of a callback or timer (vitest fails the file on one), every query settles with a
 * connection error, and the pool serves again once the server is back, with all its connections.
 */
describe.skipIf(!can)('postgres-js pool across a server outage', () => {
  const max = 4;
  let pg: PrivatePostgres;
  let database: Database;
  let tenantId: string;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    pg = await startPrivatePostgres(await freePort());
    database = await openDatabase({ kind: 'postgres', url: pg.url, maxConnections: max });
    tenantId = (await createTenantWithKey(database.db, { name: 'O', key: { prefix: 'o', hash: 'outage-test' } })).tenant
      .id;
    // The pool runs as the app role, which creates no tables: the owner makes the scratch table.
    const owner = postgres(pg.url, { max: 1, onnotice: () => {} });
    await owner`create table scratch (n int)`;
    await owner`grant insert, select on scratch to agentry_app`;
    await owner.end();
  }, 60_000);
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await database?.close();
    await pg?.destroy();
  });

  /** Transactions with their COMMIT sent ahead, plain transactions and single statements, until stopped. */
  function busy() {
    let running = true;
    const failures: unknown[] = [];
    let n = 0;
    const kinds = [
      () =>
        withTenantScope(database.db, tenantId, async (tx, commitAhead) => {
          const written = Promise.all([
            tx.execute(sql`insert into scratch values (${n++})`).execute(),
            tx.execute(sql`select pg_sleep(0.002)`).execute(),
          ]);
          commitAhead();
          await written;
        }),
      () =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`insert into scratch values (${n++})`);
          await tx.execute(sql`select pg_sleep(0.002)`);
        }),
      () => database.db.execute(sql`select count(*) from scratch`),
    ];
    const loops = Array.from({ length: max * 3 }, async (_, i) => {
      while (running) {
        await (kinds[i % kinds.length] as () => Promise<unknown>)().catch((error: unknown) => {
          failures.push(error);
          return new Promise((r) => setTimeout(r, 20));
        });
      }
    });
    return {
      failures,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** The driver's own connection errors, the server's shutdown error, or a refused connect. */
  const connectionError = (error: unknown): boolean => {
    const code = String(
      (error as { code?: unknown; cause?: { code?: unknown } }).cause?.code ?? (error as { code?: unknown }).code,
    );
    return /^(CONNECTION_CLOSED|CONNECTION_DESTROYED|CONNECTION_ENDED|CONNECT_TIMEOUT|ECONNREFUSED|ECONNRESET|EPIPE|57P01|57P03)$/.test(
      code,
    );
  };

  for (const mode of ['fast', 'immediate'] as const) {
    it(`settles every query with a connection error on a ${mode} stop, and serves with all connections after the restart`, async () => {
      const load = busy();
      await new Promise((r) => setTimeout(r, 300));
      await pg.stop(mode);
      await new Promise((r) => setTimeout(r, 1_000));
      await pg.start();
      // Every loop ends: no query waits forever on a connection that died under it.
      await load.stop();
      expect(load.failures.length).toBeGreaterThan(0);
      expect(load.failures.filter((error) => !connectionError(error))).toEqual([]);
      // Every one of the pool's connections holds a transaction at the same time: none was lost.
      let inside = 0;
      const held = await Promise.all(
        Array.from({ length: max }, () =>
          database.db.transaction(async (tx) => {
            await tx.execute(sql`select 1`);
            inside += 1;
            for (let waited = 0; inside < max && waited < 100; waited++) await new Promise((r) => setTimeout(r, 100));
            return inside;
          }),
        ),
      );
      expect(held).toEqual(Array(max).fill(max));
      expect(uncaught).toEqual([]);
    }, 60_000);
  }

  it('closes a database whose server is gone (pool and listening connection) instead of waiting forever', async () => {
    const other = await openDatabase({ kind: 'postgres', url: pg.url, maxConnections: 2 });
    await other.listen('outage_test', { notify: () => {} });
    await other.ping();
    await pg.stop('immediate');
    await expect(other.ping()).rejects.toThrow();
    await other.close();
    await pg.start();
  }, 60_000);

  it('a process opening the database while it is down waits for it instead of failing', async () => {
    await pg.stop('fast');
    const retries: number[] = [];
    const opening = openDatabase({
      kind: 'postgres',
      url: pg.url,
      maxConnections: 1,
      onStartRetry: (_error, attempt) => retries.push(attempt),
    });
    // It keeps trying while the server is away.
    while (retries.length < 2) await new Promise((r) => setTimeout(r, 100));
    await pg.start();
    const opened = await opening;
    await opened.ping();
    await opened.close();
    expect(retries.slice(0, 2)).toEqual([1, 2]);
  }, 60_000);
});
