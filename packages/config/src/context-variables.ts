/**
 * Variables the platform fills for every conversation. `dialogId` is the seed's name for
 * `conversationId`; both always carry the same value.
 */
export const systemContextVariables = ['tenantId', 'agentId', 'conversationId', 'dialogId', 'chatbotId', 'userId'];

/**
 * The system variables a caller may not pass in a conversation's context: the run always fills
 * them with the real values, so a stored context holding them would lie. `userId` is the one
 * system variable a caller sets (the tenant's servers; a visitor's comes from its verified token).
 */
export const reservedContextNames: readonly string[] = systemContextVariables.filter((name) => name !== 'userId');

/**
 * Returns the context with the `dialogId`/`conversationId` alias filled in both directions.
 *
 * @example
 * withContextAliases({ conversationId: 'c1' }); // { conversationId: 'c1', dialogId: 'c1' }
 */
export function withContextAliases(context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.assign(Object.create(null), context);
  if (out.dialogId === undefined && out.conversationId !== undefined) out.dialogId = out.conversationId;
  if (out.conversationId === undefined && out.dialogId !== undefined) out.conversationId = out.dialogId;
  return out;
}
