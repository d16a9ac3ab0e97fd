import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, startHarness } from './test-support/harness.ts';

/**
 * The long-lived streams (the inbox, a conversation's people events, a test run's progress) hold
 * the same per-process slots as run streams: past MAX_EVENT_STREAMS they are refused with 503 and
 * Retry-After, and a closed one frees its slot.
 */
describe('MAX_EVENT_STREAMS over live streams (embedded)', () => {
  let h: Harness;
  let key: string;
  let conversation: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', { env: { MAX_EVENT_STREAMS: '2' } });
    key = await createTenant(h);
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: { basic_settings: { name: 'Desk' } } } });
    conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const open = (path: string) => {
    const controller = new AbortController();
    const response = fetch(`${h.platform.url}${path}`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    return { response, close: () => controller.abort() };
  };

  it('counts inbox and conversation streams against the cap; a closed one frees its slot', async () => {
    const inbox = open('/v1/inbox/events');
    const people = open(`/v1/conversations/${conversation}/events`);
    expect((await inbox.response).status).toBe(200);
    expect((await people.response).status).toBe(200);
    const refused = await open('/v1/inbox/events').response;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await refused.json()).toMatchObject({ code: 'too_many_streams' });
    inbox.close();
    let reopened: Response | undefined;
    for (let i = 0; i < 50; i++) {
      reopened = await open('/v1/inbox/events').response;
      if (reopened.status === 200) break;
      await reopened.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(reopened?.status).toBe(200);
    await reopened?.body?.cancel();
    people.close();
  });
});
