import { claimRun, type Db, getRun, listMessages, type Run, startToolCall, toolCallRecords } from '@agentry/db';
import { tenantWithAgent } from '@agentry/db/testing';
import type { Message } from '@agentry/llm';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteBehind } from './write-behind.ts';

const say = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe.each(testDatabaseKinds())('an attempt’s write-behind buffer on %s', (kind) => {
  let database: TestDatabase;
  let db: Db;
  let startRun: () => Promise<Run>;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = database.db;
    startRun = (await tenantWithAgent(db)).startRun;
  });
  afterAll(async () => {
    await database?.destroy();
  });

  const texts = async (run: Run) =>
    (await listMessages(db, run.tenantId, run.conversationId)).map((m) =>
      m.content.map((p) => (p.type === 'text' ? p.text : p.type)).join(''),
    );
  const call = (run: Run, id: string) => ({
    runId: run.id,
    tenantId: run.tenantId,
    toolCallId: id,
    name: 'lookup',
    idempotencyKey: `${run.id}:${id}`,
  });

  it('writes nothing until a commit, then everything put off with the commit’s own work, in order', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    writes.defer({ messages: [say('one')] });
    writes.defer({ messages: [say('two')], update: { toolCallCount: 3 } });
    expect(writes.pending()).toBe(true);
    expect(await texts(run)).toEqual(['hi']);
    const started = await writes.commit((tx) => startToolCall(tx, call(run, 'c1'), run.fence));
    expect(started?.created).toBe(true);
    expect(writes.pending()).toBe(false);
    expect(await texts(run)).toEqual(['hi', 'one', 'two']);
    expect((await getRun(db, run.tenantId, run.id))?.toolCallCount).toBe(3);
  });

  it('rolls the put-off writes back with a commit whose work fails, and fails every later commit', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    writes.defer({ messages: [say('lost')] });
    await expect(
      writes.commit(async () => {
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await texts(run)).toEqual(['hi']);
    // A later write would leave a gap where the lost one was: it is refused, and so is a tool call.
    writes.defer({ messages: [say('after')] });
    await expect(writes.commit()).rejects.toThrow('the work failed');
    await expect(writes.commit((tx) => startToolCall(tx, call(run, 'c2'), run.fence))).rejects.toThrow(
      'the work failed',
    );
    // The attempt cannot end as if its writes had landed; a failed status is written alone.
    writes.defer({ messages: [say('final')] });
    await expect(writes.drain()).rejects.toThrow('the work failed');
    expect(await writes.drain('drop')).toEqual({ messages: [], update: {}, completions: [] });
    expect(await texts(run)).toEqual(['hi']);
  });

  it('refuses a stale attempt: nothing is written', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    await claimRun(db, run); // a newer attempt takes the run
    writes.defer({ messages: [say('stale')], completions: [] });
    await expect(writes.commit()).rejects.toMatchObject({ code: 'stale_attempt' });
    expect(await texts(run)).toEqual(['hi']);
  });

  it('fails a commit without writes of its own when an earlier carrier of put-off writes fails', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    writes.defer({ messages: [say('model')] });
    // The first tool call's start carries the model's message, and the database refuses the
    // transaction (a check under a fence that is not the attempt's: the whole of it rolls back).
    const first = writes.commit((tx) => startToolCall(tx, call(run, 'a'), run.fence + 1));
    // The second call's start record commits on its own, but its call must not be sent: the model
    // message it answers is not in the transcript.
    const second = writes.commit((tx) => startToolCall(tx, call(run, 'b'), run.fence));
    await expect(first).rejects.toMatchObject({ code: 'stale_attempt' });
    await expect(second).rejects.toMatchObject({ code: 'stale_attempt' });
    expect(await texts(run)).toEqual(['hi']);
    expect((await toolCallRecords(db, run, ['a', 'b'])).map((r) => r.toolCallId)).toEqual(['b']);
  });

  it('resolves a commit without writes of its own once the earlier carrier committed', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    writes.defer({ messages: [say('model')] });
    const first = writes.commit((tx) => startToolCall(tx, call(run, 'a'), run.fence));
    const second = await writes.commit(async (tx) => {
      const started = await startToolCall(tx, call(run, 'b'), run.fence);
      return started;
    });
    expect(second?.created).toBe(true);
    expect(await texts(run)).toEqual(['hi', 'model']);
    await first;
    expect((await toolCallRecords(db, run, ['a', 'b'])).map((r) => r.status)).toEqual(['started', 'started']);
  });

  it('drains what is put off for the final write, after carriers in flight', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    writes.defer({ messages: [say('carried')] });
    const carried = writes.commit();
    writes.defer({
      messages: [say('final')],
      update: { toolCallCount: 1 },
      completions: [{ toolCallId: 'x', result: { output: 1, isError: false } }],
    });
    const drained = await writes.drain();
    await carried;
    expect(drained.messages).toEqual([say('final')]);
    expect(drained.update).toEqual({ toolCallCount: 1 });
    expect(drained.completions).toHaveLength(1);
    expect(writes.pending()).toBe(false);
    expect(await texts(run)).toEqual(['hi', 'carried']);
  });

  it('a deferred tool completion is recorded by the next commit', async () => {
    const run = await startRun();
    const writes = createWriteBehind(db, run, run.fence);
    await writes.commit((tx) => startToolCall(tx, call(run, 't1'), run.fence));
    writes.defer({ completions: [{ toolCallId: 't1', result: { output: { n: 2 }, isError: false } }] });
    expect((await toolCallRecords(db, run, ['t1']))[0]?.status).toBe('started');
    writes.defer({ messages: [say('step')], update: { toolCallCount: 1 } });
    await writes.commit();
    const [record] = await toolCallRecords(db, run, ['t1']);
    expect(record).toMatchObject({ status: 'completed', output: { n: 2 }, isError: false });
  });
});
