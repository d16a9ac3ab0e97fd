import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, rowCounts, seedConfig, startHarness } from './test-support/harness.ts';

/** Messages with `Prefer: respond-async`: each queues a run behind the conversation's active one. */
async function post(h: Harness, key: string, conversationId: string) {
  const res = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ content: 'book kim@example.com' }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as any };
}

describe('a conversation’s queue of runs is bounded (embedded, PGlite)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  /** A conversation whose first run holds it (its tool call hangs), and its agent's `limits`. */
  async function busyConversation(limits: Record<string, unknown> | undefined) {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    if (limits) config.limits = limits;
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    const conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    const before = h.endpoint.requests.length;
    h.llm.enqueue({
      type: 'reply',
      toolCalls: [{ id: 'call_hold', name: 'save_customer_information', arguments: { email: 'kim@example.com' } }],
    });
    expect((await post(h, key, conversation)).status).toBe(202);
    await h.endpoint.waitForRequests(before + 1, 10_000);
    return conversation as string;
  }

  it('takes max_queued_runs queued runs (the agent’s own, or 10), then answers 429 conversation_queue_full with Retry-After', async () => {
    // The tool call does not answer while the test runs: the first run stays active.
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 30_000 }));
    // Caps drawn at random, the default among them: the boundary is exact whatever the number.
    const caps = [undefined, 1, 1 + Math.floor(Math.random() * 4)];
    for (const cap of caps) {
      const conversation = await busyConversation(cap === undefined ? undefined : { max_queued_runs: cap });
      const allowed = cap ?? 10;
      for (let i = 0; i < allowed; i++) expect((await post(h, key, conversation)).status).toBe(202);
      const before = await rowCounts(h);
      const refused = await post(h, key, conversation);
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ code: 'conversation_queue_full', status: 429 });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      // Nothing was written for the refused message.
      expect(await rowCounts(h)).toEqual(before);
    }
  }, 60_000);
});
