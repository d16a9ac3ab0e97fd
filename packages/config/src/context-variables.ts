/**
 * Variables the platform fills for every conversation. `dialogId` is the seed's name for
 * `conversationId`; both always carry the same value.
 */
export const systemContextVariables = ['tenantId', 'agentId', 'conversationId', 'dialogId', 'chatbotId', 'userId'];

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
