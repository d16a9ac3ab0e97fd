import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { conversations, messages, type RunStatus, runs } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

/**
 * Narrowing of a conversation list (the dashboard's search and filters). Every field is optional;
 * present ones are ANDed.
 */
export interface ConversationFilters {
  /** Case-insensitive substring of any text part of any message. */
  search?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created strictly before. */
  createdBefore?: Date;
  /** The status of the conversation's latest run (a conversation without runs never matches). */
  lastRunStatus?: RunStatus;
  /** true: some run failed, timed out, ended with an error or had a tool call error; false: none did. */
  hasError?: boolean;
}

/** `%`, `_` and `\` match themselves in the search text. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

const latestRunStatus = sql`(select r.status from ${runs} r where r.conversation_id = ${conversations.id} and r.tenant_id = ${conversations.tenantId} order by r.id desc limit 1)`;

/** A run that failed, timed out, carries an error, or recorded a failed tool call in its steps. */
const runWithError = sql`exists (select 1 from ${runs} r where r.conversation_id = ${conversations.id} and r.tenant_id = ${conversations.tenantId} and (r.status in ('failed', 'timed_out') or r.error is not null or r.steps @> '[{"toolCalls":[{"isError":true}]}]'::jsonb))`;

/**
 * The WHERE conditions for {@link ConversationFilters} (correlated subqueries on messages and runs,
 * so the list query stays one statement, the same on Postgres and PGlite).
 *
 * @example
 * db.select().from(conversations).where(and(eq(conversations.tenantId, t), ...conversationFilterSql({ hasError: true })));
 */
export function conversationFilterSql(filters: ConversationFilters): SQL[] {
  const where: SQL[] = [];
  if (filters.search) {
    where.push(
      sql`exists (select 1 from ${messages} m, jsonb_array_elements(m.content) part where m.conversation_id = ${conversations.id} and m.tenant_id = ${conversations.tenantId} and part->>'type' = 'text' and part->>'text' ilike ${likePattern(filters.search)})`,
    );
  }
  if (filters.createdFrom) where.push(sql`${conversations.createdAt} >= ${filters.createdFrom.toISOString()}`);
  if (filters.createdBefore) where.push(sql`${conversations.createdAt} < ${filters.createdBefore.toISOString()}`);
  if (filters.lastRunStatus) where.push(sql`${latestRunStatus} = ${filters.lastRunStatus}`);
  if (filters.hasError === true) where.push(runWithError);
  if (filters.hasError === false) where.push(sql`not ${runWithError}`);
  return where;
}

/** How many characters of the first user message a list shows (a line, not the message). */
export const PREVIEW_CHARS = 200;

/** The first text part of the conversation's first user message, cut to {@link PREVIEW_CHARS}. */
const firstUserText = sql`(select left(p.part->>'text', ${sql.raw(String(PREVIEW_CHARS))}) from ${messages} m, jsonb_array_elements(m.content) with ordinality as p(part, i) where m.conversation_id = ${conversations.id} and m.tenant_id = ${conversations.tenantId} and m.role = 'user' and p.part->>'type' = 'text' order by m.seq, p.i limit 1)`;

/**
 * Per conversation: its latest run's status (null without runs), whether any run had an error, and
 * the start of its first user message (null before one), so a list says what it was about.
 */
export interface ConversationSummary {
  lastRunStatus: RunStatus | null;
  hasError: boolean;
  preview: string | null;
}

/**
 * The summary of each listed conversation, in one query for the whole page (correlated subqueries
 * on runs and on messages by their (conversation, seq) index: no query per row).
 *
 * @example
 * const summaries = await conversationSummaries(db, tenantId, rows.map((r) => r.id));
 * summaries.get(rows[0].id); // { lastRunStatus: 'completed', hasError: false, preview: 'Can I book…' }
 */
export async function conversationSummaries(
  db: Db,
  tenantId: string,
  ids: string[],
): Promise<Map<string, ConversationSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({
        id: conversations.id,
        lastRunStatus: sql<RunStatus | null>`${latestRunStatus}`,
        hasError: sql<boolean>`${runWithError}`,
        preview: sql<string | null>`${firstUserText}`,
      })
      .from(conversations)
      .where(and(eq(conversations.tenantId, tenantId), inArray(conversations.id, ids))),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { lastRunStatus: r.lastRunStatus ?? null, hasError: Boolean(r.hasError), preview: r.preview ?? null },
    ]),
  );
}
