import type { Conversation } from '@agentry/db';

/**
 * The variables templates may read as `{{context.x}}` (and the seed's `todo_autofill_by_system`).
 * System values are written last so a conversation's own context can never override them; the
 * API refuses them in a caller's context besides (`reservedContextNames` in @agentry/config).
 */
export function systemContext(conversation: Conversation, chatbotId: string | undefined): Record<string, unknown> {
  return {
    ...conversation.context,
    tenantId: conversation.tenantId,
    agentId: conversation.agentId,
    conversationId: conversation.id,
    dialogId: conversation.id,
    ...(chatbotId ? { chatbotId } : {}),
  };
}
