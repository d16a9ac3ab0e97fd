import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkpointRun,
  claimRun,
  claimRunInTurn,
  createConversation,
  createRunForMessage,
  finishAttempt,
  finishRunFenced,
  getRun,
  getRunWithTurn,
  listMessages,
  listWebhookDeliveries,
  type Run,
  readRunStart,
  writePendingInput,
} from '../index.ts';
import { tenantWithAgent } from '../testing/run-fixtures.ts';

describe.each(testDatabaseKinds())('checkpoints on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  async function claimedRun() {
    return (await tenantWithAgent(database.db)).startRun();
  }

  const text = (t: string) => [{ type: 'text' as const, text: t }];

  it('appends several messages after the transcript with consecutive seqs, in order', async () => {
    const run = await claimedRun();
    await checkpointRun(database.db, run, run.fence, [{ role: 'assistant', content: text('a') }]);
    await checkpointRun(database.db, run, run.fence, [
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', toolName: 't', output: 1 }] },
      { role: 'assistant', content: text('b') },
      { role: 'assistant', content: text('c') },
    ]);
    const stored = await listMessages(database.db, run.tenantId, run.conversationId);
    expect(stored.map((m) => [m.seq, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'tool'],
      [4, 'assistant'],
      [5, 'assistant'],
    ]);
    expect(stored.at(-1)?.content).toEqual(text('c'));
  });

  it('writes nothing with a stale fence', async () => {
    const run = await claimedRun();
    await expect(
      checkpointRun(database.db, run, run.fence - 1, [{ role: 'assistant', content: text('late') }]),
    ).rejects.toMatchObject({ code: 'stale_attempt' });
    expect(await listMessages(database.db, run.tenantId, run.conversationId)).toHaveLength(1);
  });

  /** A tenant's agent, a conversation with a claimed run (its user message written) and a second run kept behind it. */
  async function runBehindAnother() {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const conversation = await createConversation(database.db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const send = async (message: string) =>
      (
        await createRunForMessage(database.db, {
          tenantId: tenant.id,
          conversationId: conversation.id,
          agentId: agent.id,
          agentVersion: 1,
          traceId: 'trace',
          message: { role: 'user', content: text(message) },
        })
      ).run;
    const earlier = (await claimRun(database.db, await send('first')))!;
    const later = await send('second');
    return { tenant, conversation, earlier, later };
  }

  it('reads a run with its conversation’s oldest active run in one statement', async () => {
    const { tenant, earlier, later } = await runBehindAnother();
    const ref = (run: Run) => ({ id: run.id, tenantId: tenant.id });
    expect(await getRunWithTurn(database.db, ref(later))).toMatchObject({
      run: { id: later.id, status: 'queued' },
      oldestActiveRunId: earlier.id,
    });
    expect((await getRunWithTurn(database.db, ref(earlier)))?.oldestActiveRunId).toBe(earlier.id);
    await finishRunFenced(database.db, earlier, earlier.fence, { status: 'completed' });
    expect((await getRunWithTurn(database.db, ref(later)))?.oldestActiveRunId).toBe(later.id);
    const finished = await getRunWithTurn(database.db, ref(earlier));
    expect([finished?.run.status, finished?.oldestActiveRunId]).toEqual(['completed', later.id]);
    // Another tenant's run is not found, whatever id it is given.
    const other = await tenantWithAgent(database.db);
    expect(await getRunWithTurn(database.db, { id: later.id, tenantId: other.tenant.id })).toBeUndefined();
  });

  it('claims a run and reads what it starts from together', async () => {
    const { tenant, conversation, earlier } = await runBehindAnother();
    const second = await (await tenantWithAgent(database.db)).startRun();
    const job = (run: Run, tenantId = run.tenantId) => ({
      id: run.id,
      tenantId,
      conversationId: run.conversationId,
      agentId: run.agentId,
      agentVersion: run.agentVersion,
    });
    // Claimed again (as a new attempt would): the next fence, and the rows of its start.
    const claimed = await claimRunInTurn(database.db, job(earlier));
    expect(claimed?.run).toMatchObject({ id: earlier.id, status: 'running', fence: earlier.fence + 1 });
    expect(claimed?.start?.tenant?.id).toBe(tenant.id);
    expect(claimed?.start?.conversation?.id).toBe(conversation.id);
    expect(claimed?.start?.version).toMatchObject({ agentId: earlier.agentId, version: 1 });
    expect(claimed?.start?.messages.map((m) => [m.seq, m.role, m.content])).toEqual([[1, 'user', text('first')]]);
    expect(await readRunStart(database.db, earlier)).toEqual(claimed?.start);
    // A finished run is not claimed (its reads are dropped), and another tenant's run not seen.
    await finishRunFenced(database.db, earlier, claimed!.run.fence, { status: 'completed' });
    expect(await claimRunInTurn(database.db, job(earlier))).toBeUndefined();
    expect(await claimRunInTurn(database.db, job(second, tenant.id))).toBeUndefined();
    expect((await getRun(database.db, second.tenantId, second.id))?.fence).toBe(second.fence);
  });

  it('claims a run only in its turn, with its start reads when the job names them', async () => {
    const { tenant, conversation, earlier, later } = await runBehindAnother();
    const job = (run: Run) => ({
      id: run.id,
      tenantId: tenant.id,
      conversationId: run.conversationId,
      agentId: run.agentId,
      agentVersion: run.agentVersion,
    });
    // An earlier run of the conversation is active: not claimed, the fence untouched.
    expect(await claimRunInTurn(database.db, job(later))).toBeUndefined();
    expect((await getRun(database.db, tenant.id, later.id))?.fence).toBe(later.fence);
    // The earlier run itself is in its turn (claimed again as a new attempt would be).
    const again = await claimRunInTurn(database.db, job(earlier));
    expect(again?.run).toMatchObject({ id: earlier.id, fence: earlier.fence + 1, status: 'running' });
    expect(again?.start?.conversation?.id).toBe(conversation.id);
    expect(again?.start?.messages.map((m) => m.content)).toEqual([text('first')]);
    await finishRunFenced(database.db, earlier, again!.run.fence, { status: 'completed' });
    // Its turn has come; without the start fields the claim comes alone, and a finished run is not claimed.
    const claimed = await claimRunInTurn(database.db, { id: later.id, tenantId: tenant.id });
    expect(claimed).toEqual({ run: expect.objectContaining({ id: later.id, status: 'running' }) });
    expect(await claimRunInTurn(database.db, job(earlier))).toBeUndefined();
    // Start fields that are not the run's own are not trusted: the reads are dropped.
    const other = await tenantWithAgent(database.db);
    const run = await other.startRun();
    const mismatched = await claimRunInTurn(database.db, { ...job(run), tenantId: run.tenantId, agentVersion: 2 });
    expect(mismatched?.run.id).toBe(run.id);
    expect(mismatched?.start).toBeUndefined();
  });

  it('writes a kept message after the transcript, fenced, and points the run at it', async () => {
    const { tenant, conversation, earlier, later } = await runBehindAnother();
    await finishRunFenced(database.db, earlier, earlier.fence, { status: 'completed' });
    const claimed = (await claimRun(database.db, later))!;
    await expect(writePendingInput(database.db, claimed, claimed.fence - 1)).rejects.toMatchObject({
      code: 'stale_attempt',
    });
    expect(await listMessages(database.db, tenant.id, conversation.id)).toHaveLength(1);
    await writePendingInput(database.db, claimed, claimed.fence);
    const transcript = await listMessages(database.db, tenant.id, conversation.id);
    expect(transcript.map((m) => [m.seq, m.role, m.runId, m.content])).toEqual([
      [1, 'user', earlier.id, text('first')],
      [2, 'user', later.id, text('second')],
    ]);
    const stored = await getRun(database.db, tenant.id, later.id);
    expect([stored?.pendingInput, stored?.inputMessageId]).toEqual([null, transcript[1]!.id]);
  });

  describe('finishAttempt', () => {
    const answer = { role: 'assistant' as const, content: text('done') };
    const hooked = [{ url: 'https://h.example.com/x', events: ['run.completed'], signing_secret: 'S' }];

    it('writes the put-off messages, the final status and names the next queued run', async () => {
      const { tenant, earlier, later } = await runBehindAnother();
      const done = await finishAttempt(
        database.db,
        earlier,
        earlier.fence,
        { status: 'completed', steps: [{ index: 0 } as never] },
        { messages: [answer], completions: [] },
        { webhooks: null },
      );
      expect(done).toEqual({
        nextQueued: {
          id: later.id,
          tenantId: tenant.id,
          conversationId: later.conversationId,
          agentId: later.agentId,
          agentVersion: later.agentVersion,
        },
      });
      const stored = await getRun(database.db, tenant.id, earlier.id);
      expect([stored?.status, stored?.steps, stored?.finishedAt instanceof Date]).toEqual([
        'completed',
        [{ index: 0 }],
        true,
      ]);
      const transcript = await listMessages(database.db, tenant.id, earlier.conversationId);
      expect(transcript.at(-1)?.content).toEqual(answer.content);
      // Nothing queued behind the last one.
      const last = (await claimRun(database.db, later))!;
      const end = await finishAttempt(
        database.db,
        last,
        last.fence,
        { status: 'failed' },
        { messages: [], completions: [] },
      );
      expect(end).toEqual({ nextQueued: undefined });
    });

    it('writes nothing, the put-off messages included, with a stale fence or a run already final', async () => {
      for (const webhooks of [null, undefined]) {
        const run = await claimedRun();
        const writes = { messages: [answer], completions: [] };
        const options = webhooks === undefined ? {} : { webhooks };
        expect(await finishAttempt(database.db, run, run.fence - 1, { status: 'completed' }, writes, options)).toBe(
          undefined,
        );
        // Final with the same fence (as no writer does): the status check alone refuses it.
        await finishRunFenced(database.db, run, run.fence, { status: 'cancelled' });
        expect(await finishAttempt(database.db, run, run.fence, { status: 'completed' }, writes, options)).toBe(
          undefined,
        );
        expect(await listMessages(database.db, run.tenantId, run.conversationId)).toHaveLength(1);
        expect((await getRun(database.db, run.tenantId, run.id))?.status).toBe('cancelled');
      }
    });

    it("records the webhook deliveries of the status, whether or not the caller knows the version's webhooks", async () => {
      const { tenant, startRun } = await tenantWithAgent(database.db, { webhooks: hooked });
      for (const options of [{ webhooks: hooked }, {}]) {
        const run = await startRun();
        const done = await finishAttempt(
          database.db,
          run,
          run.fence,
          { status: 'completed' },
          { messages: [answer], completions: [] },
          options,
        );
        expect(done).toEqual({ nextQueued: undefined });
        const deliveries = await listWebhookDeliveries(database.db, tenant.id, { limit: 5, runId: run.id });
        expect(deliveries.map((d) => [d.event, (d.payload.data as { output: string }).output])).toEqual([
          ['run.completed', 'done'],
        ]);
      }
    });
  });
});
