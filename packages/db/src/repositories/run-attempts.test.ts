import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointRun, listMessages } from '../index.ts';
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
});
