import { reservedContextNames } from '@agentry/config';
import type { Conversation } from '@agentry/db';
import { describe, expect, it } from 'vitest';
import { systemContext } from './system-context.ts';

describe('system context', () => {
  it('writes exactly the names callers may not pass, over whatever the conversation holds', () => {
    const forged = Object.fromEntries(reservedContextNames.map((name) => [name, 'forged']));
    const conversation = {
      id: 'conv-1',
      tenantId: 'tenant-1',
      agentId: 'agent-1',
      context: { ...forged, plan: 'gold' },
    } as unknown as Conversation;
    const context = systemContext(conversation, 'bot-1');
    const written = Object.keys(systemContext({ ...conversation, context: {} }, 'bot-1'));
    expect(written.sort()).toEqual([...reservedContextNames].sort());
    expect(context).toEqual({
      plan: 'gold',
      tenantId: 'tenant-1',
      agentId: 'agent-1',
      conversationId: 'conv-1',
      dialogId: 'conv-1',
      chatbotId: 'bot-1',
    });
  });
});
