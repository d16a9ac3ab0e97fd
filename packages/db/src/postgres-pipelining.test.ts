import { connect, type Socket } from 'node:net';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from './database.ts';
import { createTenantWithKey, type Database, getTenant, openDatabase, tenants, withTenantScope } from './index.ts';
import { pipelinedPostgres } from './postgres-pipelining.ts';

const postgresAvailable = testDatabaseKinds().includes('postgres');

// PGlite has no protocol round trips to save; its driver is left as it is.
describe.skipIf(!postgresAvailable)('pipelined statements and transactions on postgres', () => {
  let database: TestDatabase;
  let single: Database;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One connection: what it prepared is what `pg_prepared_statements` shows afterwards.
    single = await openDatabase({ kind: 'postgres', url: database.url!, maxConnections: 1 });
    const created = await createTenantWithKey(single.db, { name: 'P', key: { prefix: 'p', hash: 'prepared-test' } });
    tenantId = created.tenant.id;
  });
  afterAll(async () => {
    await single?.close();
    await database?.destroy();
  });

  async function preparedTexts(): Promise<string[]> {
    const rows = (await single.db.execute(sql`select statement from pg_prepared_statements`)) as unknown as Array<{
      statement: string;
    }>;
    return rows.map((row) => row.statement);
  }

  it('prepares parameterised queries in scoped transactions and savepoints, and answers them right', async () => {
    const name = await withTenantScope(single.db, tenantId, async (tx) => {
      const tenant = await getTenant(tx, tenantId);
      const [again] = await tx.transaction((inner) =>
        inner.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId)),
      );
      return [tenant?.name, again?.name];
    });
    expect(name).toEqual(['P', 'P']);
    const texts = await preparedTexts();
    expect(texts).toContain('select set_config($1, $2, true)');
    expect(texts.some((text) => text.startsWith('select "id", "name"') && text.includes('from "tenants"'))).toBe(true);
    expect(texts.some((text) => text.startsWith('select "name" from "tenants"'))).toBe(true);
  });

  async function scratchRows(): Promise<number[]> {
    const rows = (await single.db.execute(sql`select n from scratch order by n`)) as unknown as Array<{ n: number }>;
    return rows.map((row) => row.n);
  }

  it('commits a transaction whose BEGIN was not waited for, and rolls back one whose work throws', async () => {
    // A temporary table lives on the one connection of `single`, which every transaction here reuses.
    await single.db.execute(sql`create temporary table scratch (n int primary key)`);
    await single.db.transaction(async (tx) => {
      await tx.execute(sql`insert into scratch values (${1})`);
    });
    await expect(
      single.db.transaction(async (tx) => {
        await tx.execute(sql`insert into scratch values (${2})`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await scratchRows()).toEqual([1]);
  });

  it('fails a transaction with the failing statement’s own error, and the connection serves the next one', async () => {
    const failure = await single.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into scratch values (${3})`);
        await tx.execute(sql`insert into scratch values (${1})`);
      })
      .catch((error: unknown) => error);
    expect(String((failure as { cause?: unknown }).cause ?? failure)).toMatch(/duplicate key/);
    expect(await scratchRows()).toEqual([1]);
    await single.db.transaction((tx) => tx.execute(sql`insert into scratch values (${4})`));
    expect(await scratchRows()).toEqual([1, 4]);
  });

  it('fails a transaction one of whose statements failed unnoticed, instead of reporting a commit', async () => {
    await expect(
      single.db.transaction(async (tx) => {
        await tx.execute(sql`insert into scratch values (${8})`);
        // Not awaited: a duplicate key the work never looks at.
        tx.execute(sql`insert into scratch values (${1})`).catch(() => {});
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await scratchRows()).toEqual([1, 4]);
  });

  it('rolls nested work back to its savepoint and keeps the rest of the transaction', async () => {
    await single.db.transaction(async (tx) => {
      await tx.execute(sql`insert into scratch values (${5})`);
      await expect(
        tx.transaction(async (inner) => {
          await inner.execute(sql`insert into scratch values (${6})`);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await tx.transaction((inner) => inner.execute(sql`insert into scratch values (${7})`));
    });
    expect(await scratchRows()).toEqual([1, 4, 5, 7]);
  });

  const committedAhead = async () => (await scratchRows()).filter((n) => n >= 20);

  it('sends COMMIT ahead: statements issued by promise callbacks before it still go inside the transaction', async () => {
    await withTenantScope(single.db, tenantId, async (tx, commitAhead) => {
      const first = tx.execute(sql`insert into scratch values (${20})`).execute();
      // Issued a few microtasks later (a lazily awaited query), still before the COMMIT.
      const second = Promise.resolve().then(() => tx.execute(sql`insert into scratch values (${21})`));
      commitAhead();
      await Promise.all([first, second]);
    });
    expect(await committedAhead()).toEqual([20, 21]);
  });

  it('rolls back a transaction sent with its COMMIT when the database refuses one of its statements', async () => {
    const failure = await withTenantScope(single.db, tenantId, async (tx, commitAhead) => {
      const written = Promise.all([
        tx.execute(sql`insert into scratch values (${22})`).execute(),
        tx.execute(sql`select agentry_assert(false, 'not this time')`).execute(),
      ]);
      commitAhead();
      await written;
    }).catch((error: unknown) => error);
    expect((failure as { cause?: unknown }).cause).toMatchObject({ code: 'AG001', message: 'not this time' });
    expect(await committedAhead()).toEqual([20, 21]);
  });

  it('refuses a statement issued after the COMMIT was sent (what went before is committed)', async () => {
    const failure = await withTenantScope(single.db, tenantId, async (tx, commitAhead) => {
      const first = tx.execute(sql`insert into scratch values (${23})`).execute();
      commitAhead();
      await first;
      await tx.execute(sql`insert into scratch values (${24})`);
    }).catch((error: unknown) => error);
    expect(String((failure as { cause?: unknown }).cause)).toMatch(/after its transaction’s COMMIT was sent ahead/);
    expect(await committedAhead()).toEqual([20, 21, 23]);
  });

  it('rolls back when the work fails before its COMMIT leaves', async () => {
    await expect(
      withTenantScope(single.db, tenantId, async (tx, commitAhead) => {
        tx.execute(sql`insert into scratch values (${25})`)
          .execute()
          .catch(() => {});
        commitAhead();
        throw new Error('failed at once');
      }),
    ).rejects.toThrow('failed at once');
    expect(await committedAhead()).toEqual([20, 21, 23]);
  });

  it('keeps statements unnamed when prepared statements are off (PgBouncer in transaction mode)', async () => {
    const unnamed = await openDatabase({
      kind: 'postgres',
      url: database.url!,
      maxConnections: 1,
      preparedStatements: false,
    });
    try {
      const tenant = await withTenantScope(unnamed.db, tenantId, (tx) => getTenant(tx, tenantId));
      expect(tenant?.name).toBe('P');
      const rows = (await unnamed.db.execute(
        sql`select count(*)::int as n, string_agg(statement, $$ | $$) as s from pg_prepared_statements where statement not like $$%pg_catalog.pg_type%$$`,
      )) as unknown as Array<{
        n: number;
      }>;
      // The driver's own lookup of array types at connect time is prepared whatever the setting.
      expect(rows[0]).toEqual({ n: 0, s: null });
    } finally {
      await unnamed.close();
    }
  });

  it('reuses a prepared statement: running a query again prepares nothing new', async () => {
    await withTenantScope(single.db, tenantId, (tx) => getTenant(tx, tenantId));
    const before = (await preparedTexts()).length;
    for (let i = 0; i < 5; i++) {
      expect((await withTenantScope(single.db, tenantId, (tx) => getTenant(tx, tenantId)))?.id).toBe(tenantId);
    }
    expect((await preparedTexts()).length).toBe(before);
  });

  it('sends a transaction of more than 1 KiB, its COMMIT sent ahead, in one socket write', async () => {
    // postgres-js wrote as soon as 1024 bytes were waiting (patches/postgres@3.4.9.patch raises
    // that): the rest, COMMIT included, then left in a second write and woke the backend again.
    const writes: number[] = [];
    const url = new URL(database.url!);
    // `socket` (a connected socket to use) is in postgres-js's README, not in its types.
    const socketOption = {
      socket: () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(url.port || 5432), url.hostname, () => resolve(socket)).once('error', reject);
          const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
          socket.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
            writes.push(chunk.length);
            return write(chunk, ...rest);
          }) as typeof socket.write;
        }),
    };
    const client = postgres(database.url!, { max: 1, onnotice: () => {}, ...socketOption });
    const db = drizzle(pipelinedPostgres(client, { preparedStatements: true })) as unknown as Db;
    try {
      await db.execute(sql`create temporary table notes (body text)`);
      const insert = (body: string) =>
        withTenantScope(db, tenantId, async (tx, commitAhead) => {
          const written = tx.execute(sql`insert into notes values (${body})`);
          commitAhead();
          await written;
        });
      await insert('warm-up: prepares the statements');
      writes.length = 0;
      await insert('x'.repeat(1500));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toBeGreaterThan(1500);
      const [row] = (await db.execute(sql`select count(*)::int as n from notes`)) as unknown as Array<{ n: number }>;
      expect(row?.n).toBe(2);
    } finally {
      await client.end({ timeout: 5 });
    }
  });
});
