import { randomBytes } from 'node:crypto';
import type { Db } from '../database.ts';
import { createAgent } from '../repositories/agents.ts';
import { createConversation } from '../repositories/conversations.ts';
import { claimRun } from '../repositories/run-attempts.ts';
import { createRunForMessage } from '../repositories/run-creation.ts';
import { createTenantWithKey } from '../repositories/tenants.ts';

/**
 * Test fixture: a new tenant with one published agent (`config` merged over a minimal one), and a
 * way to start runs of it — each in a new conversation, its user message written and the run
 * claimed by a first attempt (so it has a fence).
 *
 * @example
 * const { startRun } = await tenantWithAgent(db, { webhooks });
 * const run = await startRun();
 */
export async function tenantWithAgent(db: Db, config: Record<string, unknown> = {}) {
  const { tenant } = await createTenantWithKey(db, {
    name: 'T',
    key: { prefix: 'sk_t', hash: randomBytes(8).toString('hex') },
  });
  const { agent } = await createAgent(db, {
    tenantId: tenant.id,
    name: 'Bot',
    config: { basic_settings: { name: 'Bot' }, ...config },
    contentHash: 'h',
    publish: true,
  });
  const startRun = async () => {
    const conv = await createConversation(db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const { run } = await createRunForMessage(db, {
      tenantId: tenant.id,
      conversationId: conv.id,
      agentId: agent.id,
      agentVersion: 1,
      traceId: 'trace',
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    });
    const claimed = await claimRun(db, run);
    if (!claimed) throw new Error('the new run could not be claimed');
    return claimed;
  };
  return { tenant, agent, startRun };
}
