import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  createConversation,
  createRunForMessage,
  type IdempotencyHold,
  listMessages,
  newId,
  releaseIdempotencyKey,
  withTenantScope,
} from '../index.ts';
import { idempotencyKeys, runs } from '../schema.ts';
import { tenantWithAgent } from '../testing/run-fixtures.ts';

/** A lease that has run out by the next transaction: the request holding it counts as dead. */
const DEAD = 0;
const LIVE = 60_000;

describe.each(testDatabaseKinds())('idempotency keys with leases on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  }, 120_000);
  afterAll(() => database?.destroy());

  /** A tenant with a conversation, and requests (holds) on one key of it. */
  async function setup() {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const db = database.db;
    const conv = await createConversation(db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const key = `key-${newId()}`;
    const request = (): IdempotencyHold => ({ tenantId: tenant.id, key, holder: newId() });
    const claim = (hold: IdempotencyHold, leaseMs: number, requestHash = 'same') =>
      claimIdempotencyKey(db, { ...hold, requestHash, leaseMs });
    const sendMessage = (hold: IdempotencyHold) =>
      createRunForMessage(db, {
        tenantId: tenant.id,
        conversationId: conv.id,
        agentId: agent.id,
        agentVersion: 1,
        traceId: 't',
        idempotency: hold,
        message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      });
    const runCount = async () =>
      (await withTenantScope(db, tenant.id, (tx) => tx.select().from(runs))).filter((r) => r.conversationId === conv.id)
        .length;
    return { db, tenant, agent, conv, request, claim, sendMessage, runCount };
  }

  it('refuses a key whose request is alive, and lets a retry take over one whose request died', async () => {
    const { claim, request } = await setup();
    const first = request();
    expect(await claim(first, LIVE)).toEqual({ claimed: true, takenOver: false });
    const retry = await claim(request(), LIVE);
    expect(retry).toMatchObject({ claimed: false, record: { statusCode: null, holder: first.holder } });
    const other = await claim(request(), LIVE, 'another body');
    expect(other).toMatchObject({ claimed: false, record: { requestHash: 'same' } });

    const { claim: claim2, request: request2 } = await setup();
    await claim2(request2(), DEAD);
    // Nothing was created: the retry re-executes.
    expect(await claim2(request2(), LIVE)).toEqual({ claimed: true, takenOver: true });
    // Another body never takes a dead request's key over.
    const { claim: claim3, request: request3 } = await setup();
    await claim3(request3(), DEAD);
    expect(await claim3(request3(), LIVE, 'another body')).toMatchObject({ claimed: false });
  });

  it('hands the takeover what the dead request created in its transaction (message POST, conversation POST)', async () => {
    const { db, tenant, agent, claim, request, sendMessage, runCount } = await setup();
    const first = request();
    await claim(first, DEAD);
    const { run } = await sendMessage(first);
    expect(await claim(request(), LIVE)).toEqual({
      claimed: true,
      takenOver: true,
      resource: { type: 'run', id: run.id },
    });
    expect(await runCount()).toBe(1);

    const hold = { tenantId: tenant.id, key: `conv-${newId()}`, holder: newId() };
    await claimIdempotencyKey(db, { ...hold, requestHash: 'c', leaseMs: DEAD });
    const conv = await createConversation(
      db,
      { tenantId: tenant.id, agentId: agent.id, agentVersion: null, context: {} },
      hold,
    );
    const taken = await claimIdempotencyKey(db, { ...hold, holder: newId(), requestHash: 'c', leaseMs: LIVE });
    expect(taken).toEqual({ claimed: true, takenOver: true, resource: { type: 'conversation', id: conv.id } });
  });

  it('rolls back what a request creates after its key was taken over: created once, whoever holds the key', async () => {
    const { db, tenant, conv, claim, request, sendMessage, runCount } = await setup();
    const slow = request();
    await claim(slow, DEAD);
    const retry = request();
    await claim(retry, LIVE);
    await expect(sendMessage(slow)).rejects.toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
    expect(await runCount()).toBe(0);
    expect(await listMessages(db, tenant.id, conv.id)).toEqual([]);
    // Its answer and release are no-ops too: the key is the retry's.
    await completeIdempotencyKey(db, slow, { statusCode: 200, body: { from: 'slow' } });
    await releaseIdempotencyKey(db, slow);
    const { run } = await sendMessage(retry);
    await completeIdempotencyKey(db, retry, { statusCode: 202, body: { id: run.id } });
    expect(await claim(request(), LIVE)).toMatchObject({
      claimed: false,
      record: { statusCode: 202, responseBody: { id: run.id }, lockedUntil: null },
    });
    expect(await runCount()).toBe(1);
  });

  it('releases a failed request: a key with nothing created is freed, one with a creation is handed over', async () => {
    const { claim, request } = await setup();
    const failed = request();
    await claim(failed, LIVE);
    await releaseIdempotencyKey(database.db, failed);
    expect(await claim(request(), LIVE)).toEqual({ claimed: true, takenOver: false });

    const { claim: claim2, request: request2, sendMessage: send2 } = await setup();
    const streamed = request2();
    await claim2(streamed, LIVE);
    const { run } = await send2(streamed);
    await releaseIdempotencyKey(database.db, streamed);
    expect(await claim2(request2(), LIVE)).toEqual({
      claimed: true,
      takenOver: true,
      resource: { type: 'run', id: run.id },
    });
  });

  it('lets exactly one of several retries racing for a dead request’s key take it over', async () => {
    const { claim, request } = await setup();
    await claim(request(), DEAD);
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => claim(request(), LIVE)));
    expect(outcomes.filter((o) => o.claimed)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.claimed && o.record.statusCode === null)).toHaveLength(3);
  });

  it('agrees with a model of the key over generated interleavings of requests claiming, creating, answering, releasing and dying', async () => {
    const random = seeded(16);
    for (let sequence = 0; sequence < 25; sequence++) {
      const { db, tenant, request, claim, sendMessage, runCount } = await setup();
      // The model: the key's row, and each request's view (what the middleware would do next).
      let row: { holder: number; answered: boolean; resource?: string; live: boolean } | undefined;
      const holds = [request(), request(), request()];
      const phase: Array<'idle' | 'holding' | 'answering'> = ['idle', 'idle', 'idle'];
      let created = 0;
      const steps: string[] = [];
      for (let step = 0; step < 12; step++) {
        const i = Math.floor(random() * holds.length);
        const op = (['claim', 'create', 'complete', 'release', 'die'] as const)[Math.floor(random() * 5)]!;
        steps.push(`${op}(${i})`);
        const where = `sequence ${sequence}: ${steps.join(' ')}`;
        if (op === 'claim' && phase[i] === 'idle') {
          holds[i] = request();
          const outcome = await claim(holds[i]!, LIVE);
          const expected: unknown = !row
            ? { claimed: true, takenOver: false }
            : row.answered || row.live
              ? { claimed: false, answered: row.answered }
              : {
                  claimed: true,
                  takenOver: true,
                  ...(row.resource ? { resource: { type: 'run', id: row.resource } } : {}),
                };
          const seen = outcome.claimed ? outcome : { claimed: false, answered: outcome.record.statusCode !== null };
          expect(seen, where).toEqual(expected);
          if (outcome.claimed) {
            row = { holder: i, answered: false, live: true, ...(row?.resource ? { resource: row.resource } : {}) };
            // A takeover with a resource answers from it; without one the request runs.
            phase[i] = outcome.resource ? 'answering' : 'holding';
          }
        } else if (op === 'create' && phase[i] === 'holding') {
          const mayCreate = row?.holder === i && !row.answered;
          const result = await sendMessage(holds[i]!).then(
            ({ run }) => run.id,
            (error: { code?: string }) => error.code,
          );
          if (mayCreate) {
            expect(result, where).not.toBe('idempotency_key_in_use');
            row!.resource = result;
            created++;
          } else expect(result, where).toBe('idempotency_key_in_use');
          phase[i] = 'answering';
        } else if ((op === 'complete' || op === 'release') && phase[i] !== 'idle') {
          if (op === 'complete') await completeIdempotencyKey(db, holds[i]!, { statusCode: 200, body: {} });
          else await releaseIdempotencyKey(db, holds[i]!);
          if (row?.holder === i) {
            if (op === 'complete') row = { ...row, answered: true, live: false };
            else row = row.resource ? { ...row, live: false } : undefined;
          }
          phase[i] = 'idle';
        } else if (op === 'die' && phase[i] !== 'idle') {
          // The process dies: its lease runs out (made to, instead of waited for).
          await withTenantScope(db, tenant.id, (tx) =>
            tx
              .update(idempotencyKeys)
              .set({ lockedUntil: sql`now() - interval '1 second'` })
              .where(and(eq(idempotencyKeys.holder, holds[i]!.holder), isNull(idempotencyKeys.statusCode))),
          );
          if (row?.holder === i && !row.answered) row.live = false;
          phase[i] = 'idle';
        }
      }
      // Each creation the model allowed happened, and no other: never a second run for a stored link.
      expect(await runCount(), steps.join(' ')).toBe(created);
    }
  });
});

/** A small deterministic generator (mulberry32), so a failing interleaving is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
