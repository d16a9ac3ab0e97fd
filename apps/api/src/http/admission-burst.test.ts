import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness, waitForRun } from '../test-support/harness.ts';

const BURST = 200;

/** `/healthz` again and again until stopped: which probes started and answered, and when. */
function probeHealth(url: string) {
  const answers: Array<{ started: number; answered: number; status: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const status = await fetch(`${url}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      answers.push({ started, answered: performance.now(), status });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

// The embedded mode (PGlite and the in-process jobs in one process) with the default turns, a model
// taking 2 s and 2 runs of the tenant at once: runs pile up as real ones do, so a backlog bound of 8
// must refuse part of the burst however fast the machine takes the requests in.
describe(`the embedded mode under a burst of ${BURST} message POSTs`, () => {
  let h: Harness;
  let key: string;
  const conversations: string[] = [];
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', {
      env: { RATE_LIMIT_PER_MINUTE: '1000000', TENANT_CONCURRENCY: '2', ADMISSION_MAX_QUEUED_RUNS: '8' },
    });
    h.llm.setResponder(() => ({ type: 'reply', text: 'In stock.', delayMs: 2000 }));
    key = await createTenant(h);
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } })).json.id;
    const create = async () => (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    // A few at a time: fewer than the admission lets in at once, so none is refused.
    while (conversations.length < BURST) conversations.push(...(await Promise.all([1, 2, 3, 4].map(create))));
  }, 300_000);
  afterAll(() => h?.close());

  it('refuses the excess with Retry-After (never 500), keeps /healthz answering, and ends every accepted run', async () => {
    const probe = probeHealth(h.platform.url);
    let outstanding = BURST;
    let burstEnded = Number.POSITIVE_INFINITY;
    const answers = await Promise.all(
      conversations.map(async (id) => {
        const res = await fetch(`${h.platform.url}/v1/conversations/${id}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'Is item 42 in stock?' }),
        });
        const answer = { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
        if (--outstanding === 0) burstEnded = performance.now();
        return answer;
      }),
    );
    await probe.stop();

    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    const refused = answers.filter((a) => a.status === 503 || a.status === 429);
    const accepted = answers.filter((a) => a.status === 200 || a.status === 202);
    expect(refused.length + accepted.length).toBe(BURST);
    // 200 runs at once are far past the backlog bound: some must be refused, some run.
    expect(refused.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(r.json.code).toBe('server_busy');
    }
    // Nothing of a refused message was written: its conversation has no run.
    const refusedConversation = conversations[answers.findIndex((a) => a.status === 503)]!;
    expect((await call(h, 'GET', `/v1/conversations/${refusedConversation}`, { key })).json.messages).toEqual([]);
    // Liveness answered while POSTs were still being served (its speed belongs to the benchmark).
    const during = probe.answers.filter((p) => p.answered < burstEnded);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((p) => p.status === 200)).toBe(true);

    const ends = await Promise.all(accepted.map((a) => waitForRun(h, key, a.json.id, 120_000)));
    expect(ends.map((run) => run.status)).toEqual(accepted.map(() => 'completed'));
  }, 240_000);
});
