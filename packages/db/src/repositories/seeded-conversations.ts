import type { Message } from '@agentry/llm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { type ConversationTest, conversations, messages } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';
import type { Conversation } from './conversations.ts';

/**
 * Creates a conversation whose transcript starts with `history` (messages no run produced, so
 * their `run_id` is null), atomically. Used by the OpenAI-compatible endpoint, whose clients send
 * the whole chat with every request.
 *
 * @example
 * const conversation = await createConversationWithHistory(db, {
 *   tenantId, agentId, agentVersion: null, context: {},
 *   history: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
 * });
 */
export async function createConversationWithHistory(
  db: Db,
  input: {
    tenantId: string;
    agentId: string;
    agentVersion: number | null;
    context: Record<string, unknown>;
    history: Message[];
    /** A test conversation's fixtures and model (issue 22). */
    test?: ConversationTest;
  },
): Promise<Conversation> {
  const { history, ...fields } = input;
  return withTenantScope(db, input.tenantId, async (tx) => {
    const [conversation] = await tx
      .insert(conversations)
      .values({ id: newId(), ...fields })
      .returning();
    if (history.length > 0) {
      await tx.insert(messages).values(
        history.map((m, i) => ({
          id: newId(),
          tenantId: input.tenantId,
          conversationId: conversation!.id,
          runId: null,
          seq: i + 1,
          role: m.role,
          content: m.content,
        })),
      );
    }
    return conversation!;
  });
}
