import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { canStartPrivatePostgres, type PrivatePostgres, startPrivatePostgres } from './private-postgres.ts';
import { freePort } from './private-redis.ts';

const can = canStartPrivatePostgres();
if (!can) console.warn('[private-postgres] NOTICE: initdb not installed: private Postgres tests are SKIPPED.');

describe.skipIf(!can)('private Postgres', () => {
  let pg: PrivatePostgres | undefined;
  afterAll(async () => {
    await pg?.destroy();
  });

  it('starts, survives an immediate stop and a restart, and keeps its data', async () => {
    pg = await startPrivatePostgres(await freePort());
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    await sql`create table t (v int)`;
    await sql`insert into t values (1)`;
    await sql.end();
    await pg.restart('immediate');
    const again = postgres(pg.url, { max: 1 });
    const rows = await again`select v from t`;
    expect(rows.map((r) => r.v)).toEqual([1]);
    await pg.stop('fast');
    await expect(again`select 1`).rejects.toThrow();
    // end() of a client whose server went away waits for nothing only with a timeout.
    await again.end({ timeout: 1 });
    await pg.start();
    const third = postgres(pg.url, { max: 1 });
    expect((await third`select 2 as v`)[0]?.v).toBe(2);
    await third.end();
  }, 120_000);
});
