import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeTurnsWithIo } from './pglite-turns.ts';

const QUERIES = 40;
const WORK = 'select count(*)::int as n from generate_series(1, 20000)';

describe('takeTurnsWithIo', () => {
  let client: PGlite;
  beforeAll(async () => {
    client = new PGlite();
    await client.waitReady;
  });
  afterAll(async () => {
    await client.close();
  });

  it('lets an HTTP request be answered while a burst of queries is queued', async () => {
    takeTurnsWithIo(client);
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      let finished = 0;
      const burst = Array.from({ length: QUERIES }, () => client.query(WORK).then(() => finished++));
      // The request's socket is served by the event loop's poll phase: without turns it waits for all.
      const answeredAfter = await fetch(`http://127.0.0.1:${port}/`).then(() => finished);
      await Promise.all(burst);
      expect(finished).toBe(QUERIES);
      expect(answeredAfter).toBeLessThan(QUERIES / 2);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('lets an HTTP request be answered while a long transaction runs', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      let statements = 0;
      const long = client.transaction(async (tx) => {
        for (let i = 0; i < QUERIES; i++) {
          await tx.query(WORK);
          statements++;
        }
      });
      const answeredAfter = await fetch(`http://127.0.0.1:${port}/`).then(() => statements);
      await long;
      expect(statements).toBe(QUERIES);
      expect(answeredAfter).toBeLessThan(QUERIES / 2);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('keeps results, errors and transactions as they were', async () => {
    const results = await Promise.allSettled([
      client.query<{ n: number }>('select 1 as n'),
      client.query('select * from no_such_table'),
      client.transaction(async (tx) => {
        await tx.exec('create temporary table t (n int); insert into t values (2)');
        return (await tx.query<{ n: number }>('select n from t')).rows[0]?.n;
      }),
      client.exec('select 3'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(results[0].status === 'fulfilled' && results[0].value.rows).toEqual([{ n: 1 }]);
    expect(results[2].status === 'fulfilled' && results[2].value).toBe(2);
  });
});
