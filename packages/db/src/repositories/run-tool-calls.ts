// A run's recorded tool calls: started once, completed under the attempt's fence, read back.
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { prebuilt, slot } from '../prebuilt.ts';
import { toolCalls } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';
import { assertFence, behindFence } from './run-fence.ts';
import type { RunRef } from './runs.ts';

export type ToolCallRecord = typeof toolCalls.$inferSelect;

/**
 * Records a tool call as started unless it already was; returns the record as it stands, so the
 * caller sees a completed result from an earlier attempt instead of sending again.
 */
export async function startToolCall(
  db: Db,
  input: { runId: string; tenantId: string; toolCallId: string; name: string; idempotencyKey: string },
  fence: number,
): Promise<{ record: ToolCallRecord; created: boolean }> {
  return withTenantScope(db, input.tenantId, async (tx) => {
    const fenced = assertFence(tx, input.runId, fence);
    // One statement either way (nothing read first, so it can travel with a COMMIT sent ahead): a
    // new record is inserted, an existing one comes back as it stands (the no-op update leaves it
    // as it was; `xmax` is 0 only for a row this statement inserted).
    const [row] = await behindFence(fenced, toolCallStart(tx, input));
    const { created, ...record } = row!;
    return { record, created };
  });
}

const toolCallStart = prebuilt((db) =>
  db
    .insert(toolCalls)
    .values({
      runId: sql.placeholder('runId'),
      toolCallId: sql.placeholder('toolCallId'),
      tenantId: sql.placeholder('tenantId'),
      name: sql.placeholder('name'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      status: 'started',
    })
    .onConflictDoUpdate({ target: [toolCalls.runId, toolCalls.toolCallId], set: { runId: sql`excluded.run_id` } })
    .returning({ ...getTableColumns(toolCalls), created: sql<boolean>`(xmax = 0)` }),
);

export async function completeToolCall(
  db: Db,
  key: { runId: string; tenantId: string; toolCallId: string },
  fence: number,
  result: { output: unknown; isError: boolean; errorCode?: string },
): Promise<void> {
  await withTenantScope(db, key.tenantId, async (tx) => {
    const fenced = assertFence(tx, key.runId, fence);
    const values = { runId: key.runId, toolCallId: key.toolCallId, output: result.output, isError: result.isError };
    const completed = result.errorCode
      ? toolCallFailed(tx, { ...values, errorCode: result.errorCode })
      : toolCallDone(tx, values);
    await behindFence(fenced, completed);
  });
}

/** A call's completion; `errorCode` null is a shape of its own (a placeholder cannot carry SQL NULL through a column encoder). */
function buildCompletion(db: Db, withCode: boolean) {
  return db
    .update(toolCalls)
    .set({
      status: 'completed',
      output: slot<unknown>('output'),
      isError: slot<boolean>('isError'),
      errorCode: withCode ? slot<string>('errorCode') : null,
      completedAt: sql`now()`,
    })
    .where(and(eq(toolCalls.runId, sql.placeholder('runId')), eq(toolCalls.toolCallId, sql.placeholder('toolCallId'))));
}

const toolCallDone = prebuilt((db) => buildCompletion(db, false));
const toolCallFailed = prebuilt((db) => buildCompletion(db, true));

/** The recorded state of some of a run's tool calls. */
export async function toolCallRecords(db: Db, run: RunRef, toolCallIds: string[]): Promise<ToolCallRecord[]> {
  if (toolCallIds.length === 0) return [];
  return withTenantScope(db, run.tenantId, (tx) =>
    tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.toolCallId, toolCallIds))),
  );
}
