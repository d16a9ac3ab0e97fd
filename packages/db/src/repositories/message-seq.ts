import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import { messages } from '../schema.ts';

/**
 * The seq of a message inserted after the conversation's last one, read by the insert itself
 * (one statement instead of a select and an insert). Every row of a multi-row insert sees the
 * same max, so the rows of one insert get `offset` 1, 2, … The caller makes the writers of a
 * conversation take turns (the conversation row lock, or the run's fence); the unique index on
 * (conversation_id, seq) refuses a duplicate should two still meet.
 *
 * @example
 * tx.insert(messages).values({ …, seq: seqAfterLast(conversationId, 1) });
 */
export function seqAfterLast(conversationId: string | Placeholder, offset: number): SQL {
  return sql`(select coalesce(max(${messages.seq}), 0) + ${offset} from ${messages} where ${messages.conversationId} = ${conversationId})`;
}
