/**
 * Agents answering from knowledge bases, end to end over the API: a base, a document added as text
 * and ingested by the platform's jobs, an agent whose config names the base, and its answer's
 * citations in the synchronous answer, the transcript and the run's events. Both modes of
 * `knowledge` (tool, auto) on every platform mode.
 *
 * To add a case (another format, another language), add a `Case` to `cases`: a document, a
 * question, and the words its passage must hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, readSse, runModes, startHarness } from './test-support/harness.ts';
import { type KnowledgeCase, waitForDocument } from './test-support/knowledge.ts';

const modes = runModes('knowledge-agent');

const cases: KnowledgeCase[] = [
  {
    name: 'a plain-text handbook',
    document: {
      title: 'Returns handbook',
      text: 'Shipping\n\nOrders ship within two business days.\n\nRefunds\n\nRefunds are paid within 14 days after the returned parcel arrives at the warehouse.',
    },
    question: 'How long do refunds take?',
    passage: 'Refunds are paid within 14 days',
  },
];

describe.each(modes)('agents with knowledge bases (%s)', (mode) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  /** A base holding the case's document, ready to search; its id and the document's. */
  async function baseWith(c: KnowledgeCase) {
    const base = await call(h, 'POST', '/v1/knowledge-bases', { key, body: { name: `KB ${c.name} ${Math.random()}` } });
    expect(base.status, JSON.stringify(base.json)).toBe(201);
    const doc = await call(h, 'POST', `/v1/knowledge-bases/${base.json.id}/documents`, { key, body: c.document });
    expect(doc.status, JSON.stringify(doc.json)).toBeLessThan(300);
    const ready = await waitForDocument(h, key, base.json.id, doc.json.id);
    expect(ready.status, JSON.stringify(ready)).toBe('ready');
    return { baseId: base.json.id as string, baseName: base.json.name as string, documentId: doc.json.id as string };
  }

  async function agentWith(knowledge: Record<string, unknown>) {
    const agent = await call(h, 'POST', '/v1/agents', {
      key,
      body: { publish: true, config: { basic_settings: { name: 'Helper' }, knowledge } },
    });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    return conv.json.id as string;
  }

  it.each(cases)(
    'tool mode, $name: the model searches, reads the passage, and the answer cites the document',
    async (c) => {
      const { baseName, baseId, documentId } = await baseWith(c);
      const conv = await agentWith({ bases: [baseName] });
      h.llm.reset();
      h.llm.enqueue({ type: 'reply', toolCalls: [{ name: 'search_knowledge', arguments: { query: c.question } }] });
      h.llm.enqueue({ type: 'reply', text: 'As the handbook says [1]. Not a source: [42].' });
      const answer = await call(h, 'POST', `/v1/conversations/${conv}/messages`, {
        key,
        body: { content: c.question },
      });
      expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(300);
      expect(h.llm.requests).toHaveLength(2);
      expect(JSON.stringify(h.llm.requests[1]!.body.messages)).toContain(c.passage);
      expect(answer.json.citations).toEqual([
        expect.objectContaining({
          marker: 1,
          document_id: documentId,
          knowledge_base_id: baseId,
          title: c.document.title,
        }),
      ]);
      expect(answer.json.citations[0].snippet).toContain(c.passage.slice(0, 20));
      const transcript = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
      expect(transcript.at(-1).citations).toEqual(answer.json.citations);
      expect(transcript.at(-1).content).toEqual([
        { type: 'text', text: 'As the handbook says [1]. Not a source: [42].' },
      ]);
      const events = await readSse(
        await fetch(`${h.platform.url}/v1/runs/${answer.json.id}/events`, {
          headers: { authorization: `Bearer ${key}` },
        }),
        (e) => e.event === 'run-status' && e.data.final === true,
      );
      expect(events.find((e) => e.event === 'citations')?.data.citations).toEqual(answer.json.citations);
    },
  );

  it.each(cases)('auto mode, $name: one model request per turn, with the passage in it', async (c) => {
    const { baseId, documentId } = await baseWith(c);
    const conv = await agentWith({ bases: [baseId], mode: 'auto', top_k: 3 });
    h.llm.reset();
    h.llm.enqueue({ type: 'reply', text: 'Here is the answer [1].' });
    const answer = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content: c.question } });
    expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(300);
    expect(h.llm.requests).toHaveLength(1);
    expect(JSON.stringify(h.llm.requests[0]!.body.messages)).toContain(c.passage);
    expect(answer.json.citations.map((x: { document_id: string }) => x.document_id)).toEqual([documentId]);
    const transcript = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
    expect(transcript.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript[1].content[0]).toMatchObject({ type: 'tool_call', name: 'search_knowledge' });
  });
});
