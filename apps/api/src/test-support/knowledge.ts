import { call, type Harness } from './harness.ts';

/** A knowledge-agent test case: a document, a question, and the words its passage must hold. */
export interface KnowledgeCase {
  name: string;
  document: { title: string; text: string; format?: 'text' | 'markdown' | 'html' | 'csv' };
  question: string;
  /** Words of the passage the question must find (they reach the model's request). */
  passage: string;
}

/** Polls a document until it is `ready` (or failed, or the time is up). */
export async function waitForDocument(h: Harness, key: string, baseId: string, documentId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents/${documentId}`, { key });
    if (res.json.status === 'ready' || res.json.status === 'failed' || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}
