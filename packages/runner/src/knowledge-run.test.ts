import { randomBytes, randomUUID } from 'node:crypto';
import {
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  type Db,
  getRun,
  listMessages,
} from '@agentry/db';
import type { KnowledgeHit, KnowledgeSearch } from '@agentry/knowledge';
import type { SourceCitation } from '@agentry/llm';
import { createMemoryBus, type RunEvent } from '@agentry/run-events';
import {
  createTestDatabase,
  type FakeLlmServer,
  startFakeLlm,
  type TestDatabase,
  testDatabaseKinds,
} from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRunProcessor } from './execute-run.ts';
import { sourcesOf } from './knowledge-sources.ts';

const text = (t: string) => [{ type: 'text' as const, text: t }];

const baseId = randomUUID();
/** Passages of a small handbook, by the words a query must contain to find them. */
const passages: Array<{ words: string[]; hit: Omit<KnowledgeHit, 'score'> }> = [
  {
    words: ['refund'],
    hit: {
      chunkId: randomUUID(),
      documentId: randomUUID(),
      knowledgeBaseId: baseId,
      title: 'Refund policy',
      headingPath: ['Billing', 'Refunds'],
      page: 3,
      url: null,
      text: 'Refunds are paid within 14 days of the return arriving at our warehouse.',
    },
  },
  {
    words: ['shipping', 'refund'],
    hit: {
      chunkId: randomUUID(),
      documentId: randomUUID(),
      knowledgeBaseId: baseId,
      title: 'Shipping',
      headingPath: [],
      page: null,
      url: 'https://help.example.com/shipping',
      text: 'Orders ship within 2 business days; return shipping is free.',
    },
  },
];

/** A knowledge search over the passages above that remembers what it was asked. */
function handbookSearch() {
  const calls: Array<Parameters<KnowledgeSearch['search']>[0]> = [];
  const search: KnowledgeSearch = {
    async search(params) {
      calls.push(params);
      const query = params.query.toLowerCase();
      return passages
        .filter((p) => p.words.some((w) => query.includes(w)))
        .slice(0, params.topK)
        .map((p, i) => ({ ...p.hit, score: 1 / (i + 1) }));
    },
  };
  return { search, calls };
}

describe.each(testDatabaseKinds())('agents with knowledge bases on %s', (kind) => {
  let database: TestDatabase;
  let db: Db;
  let fake: FakeLlmServer;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = database.db;
    fake = await startFakeLlm();
    tenantId = (await createTenantWithKey(db, { name: 'K', key: { prefix: 'sk_k', hash: `hash-k-${kind}` } })).tenant
      .id;
  });
  afterAll(async () => {
    await fake?.close();
    await database?.destroy();
  });
  beforeEach(() => fake.reset());

  async function conversationWith(knowledge: Record<string, unknown>) {
    const { agent } = await createAgent(db, {
      tenantId,
      name: 'Helper',
      config: { basic_settings: { name: 'Helper' }, knowledge },
      contentHash: `h-${randomBytes(4).toString('hex')}`,
      publish: true,
    });
    const conversation = await createConversation(db, { tenantId, agentId: agent.id, agentVersion: null, context: {} });
    return { agentId: agent.id, conversationId: conversation.id };
  }

  /** Sends a message and runs its run to its end over the fake model; the run's events. */
  async function ask(target: { agentId: string; conversationId: string }, message: string, search: KnowledgeSearch) {
    const { run } = await createRunForMessage(db, {
      tenantId,
      ...target,
      agentVersion: 1,
      traceId: 'trace',
      message: { role: 'user', content: text(message) },
    });
    const events = createMemoryBus();
    const processor = createRunProcessor({
      db,
      models: { openai: { apiKey: 'k', baseURL: fake.openaiBaseUrl }, maxRetries: 0 },
      maxAttempts: 1,
      events,
      knowledge: search,
    });
    try {
      await processor.process({ id: run.id, data: { runId: run.id, tenantId }, attempt: 1 });
    } finally {
      processor.close();
    }
    const seen: RunEvent[] = [];
    for await (const entry of events.subscribe(run.id, { signal: AbortSignal.timeout(2000) })) seen.push(entry.event);
    expect((await getRun(db, tenantId, run.id))?.status).toBe('completed');
    return seen;
  }

  async function lastAnswerCitations(conversationId: string): Promise<SourceCitation[] | undefined> {
    const answer = (await listMessages(db, tenantId, conversationId)).findLast((m) => m.role === 'assistant');
    return answer?.content.flatMap((p) => (p.type === 'text' ? (p.citations ?? []) : []));
  }

  it('tool mode: the model searches, reads the passages, and its answer cites them; unknown markers get nothing', async () => {
    const target = await conversationWith({ bases: ['Handbook'], top_k: 3 });
    const { search, calls } = handbookSearch();
    fake.enqueue({
      type: 'reply',
      toolCalls: [{ id: 'call_s1', name: 'search_knowledge', arguments: { query: 'refund time' } }],
    });
    fake.enqueue({ type: 'reply', text: 'Refunds take 14 days [1], shipping is free [2]. See also [9].' });
    const events = await ask(target, 'How long do refunds take?', search);

    expect(calls).toEqual([
      expect.objectContaining({ tenantId, knowledgeBases: ['Handbook'], query: 'refund time', topK: 3 }),
    ]);
    const first = fake.requests[0]!.body;
    expect(JSON.stringify(first.tools)).toContain('search_knowledge');
    expect(JSON.stringify(first.messages)).toContain('cite');
    const second = JSON.stringify(fake.requests[1]!.body.messages);
    expect(second).toContain('Refunds are paid within 14 days');
    expect(second).toContain('[1] Refund policy — Billing › Refunds (page 3)');
    const citations = await lastAnswerCitations(target.conversationId);
    expect(citations).toEqual([
      {
        marker: 1,
        document_id: passages[0]!.hit.documentId,
        knowledge_base_id: baseId,
        title: 'Refund policy',
        url: null,
        page: 3,
        heading_path: ['Billing', 'Refunds'],
        snippet: passages[0]!.hit.text,
      },
      expect.objectContaining({ marker: 2, title: 'Shipping', url: 'https://help.example.com/shipping', page: null }),
    ]);
    const cited = events.find((e) => e.type === 'citations');
    expect(cited?.citations).toEqual(citations);
    expect(events.indexOf(cited!)).toBeLessThan(events.findIndex((e) => e.final === true));
    // The same chunk keeps its number in the conversation's next run; a new one takes the next.
    passages.push({
      words: ['warranty'],
      hit: { ...passages[0]!.hit, chunkId: randomUUID(), title: 'Warranty', text: 'Two years of warranty.' },
    });
    fake.enqueue({
      type: 'reply',
      toolCalls: [{ id: 'call_s2', name: 'search_knowledge', arguments: { query: 'warranty or refund' } }],
    });
    fake.enqueue({ type: 'reply', text: 'Two years [3]; refunds as said [1].' });
    await ask(target, 'And the warranty?', search);
    const stored = await listMessages(db, tenantId, target.conversationId);
    const results = stored.flatMap((m) =>
      m.content.flatMap((p) => (p.type === 'tool_result' && p.toolName === 'search_knowledge' ? [p.output] : [])),
    );
    expect(sourcesOf(results[1]).map((s) => [s.n, s.title])).toEqual([
      [1, 'Refund policy'],
      [2, 'Shipping'],
      [3, 'Warranty'],
    ]);
    expect((await lastAnswerCitations(target.conversationId))?.map((c) => [c.marker, c.title])).toEqual([
      [3, 'Warranty'],
      [1, 'Refund policy'],
    ]);
    passages.pop();
  });

  it('auto mode: the user’s message is searched before the one model request, stored as a search_knowledge pair', async () => {
    const target = await conversationWith({ bases: [baseId], mode: 'auto' });
    const { search, calls } = handbookSearch();
    fake.enqueue({ type: 'reply', text: 'Within 14 days [1].' });
    const events = await ask(target, 'When is my refund paid?', search);

    expect(calls.map((c) => [c.query, c.topK, c.knowledgeBases])).toEqual([['When is my refund paid?', 5, [baseId]]]);
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!.body;
    expect(JSON.stringify(request.messages)).toContain('Refunds are paid within 14 days');
    expect(JSON.stringify(request.tools ?? [])).not.toContain('search_knowledge');
    const stored = await listMessages(db, tenantId, target.conversationId);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const call = stored[1]!.content[0]!;
    expect(call).toMatchObject({
      type: 'tool_call',
      name: 'search_knowledge',
      arguments: { query: 'When is my refund paid?' },
    });
    expect(call.type === 'tool_call' && call.id.startsWith('ks_')).toBe(true);
    expect((await lastAnswerCitations(target.conversationId))?.map((c) => c.title)).toEqual(['Refund policy']);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['tool-call', 'tool-result', 'citations']));

    // The next turn: one model request again, and the earlier source keeps its number.
    fake.enqueue({ type: 'reply', text: 'Free [2].' });
    await ask(target, 'Is return shipping free? (refund)', search);
    expect(fake.requests).toHaveLength(2);
    expect((await lastAnswerCitations(target.conversationId))?.map((c) => [c.marker, c.title])).toEqual([
      [2, 'Shipping'],
    ]);
  });

  it('a failing search is a tool error the model reads, not a failed run', async () => {
    const target = await conversationWith({ bases: ['Handbook'] });
    const failing: KnowledgeSearch = {
      search: () => Promise.reject(Object.assign(new Error('boom'), { code: 'x' })),
    };
    fake.enqueue({ type: 'reply', toolCalls: [{ name: 'search_knowledge', arguments: { query: 'refund' } }] });
    fake.enqueue({ type: 'reply', text: 'I could not look that up [1].' });
    await ask(target, 'refund?', failing);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('internal_error');
    expect(await lastAnswerCitations(target.conversationId)).toEqual([]);
  });
});
