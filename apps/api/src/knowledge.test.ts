import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, runModes, startHarness } from './test-support/harness.ts';

const modes = runModes('knowledge');

/**
 * Knowledge bases over HTTP, in every run mode: documents uploaded as multipart and sent as JSON
 * are ingested in the background (in process, or by the worker over BullMQ) and searched; the
 * bounds answer with their codes; another tenant sees nothing.
 */
describe.each(modes)('knowledge bases (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let other: string;
  let baseId: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'none', { env: { KNOWLEDGE_MAX_FILE_BYTES: String(64 * 1024) } });
    key = await createTenant(h, 'Knows');
    other = await createTenant(h, 'Other');
  }, 120_000);
  afterAll(() => h?.close());

  const upload = async (apiKey: string, file: Blob, filename: string, title?: string) => {
    const form = new FormData();
    form.set('file', file, filename);
    if (title) form.set('title', title);
    const res = await fetch(`${h.platform.url}/v1/knowledge-bases/${baseId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: form,
    });
    return { status: res.status, json: await res.json() };
  };

  const ready = async (documentId: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const got = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents/${documentId}`, { key });
      if (got.json.status === 'ready' || got.json.status === 'failed' || Date.now() > deadline) return got.json;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('creates a base, ingests Markdown (multipart) and text (JSON), and search finds the right chunk', async () => {
    const created = await call(h, 'POST', '/v1/knowledge-bases', { key, body: { name: 'Help center' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ object: 'knowledge_base', embedding_model: 'local/hashing-v1' });
    baseId = created.json.id;
    expect((await call(h, 'POST', '/v1/knowledge-bases', { key, body: { name: 'Help center' } })).status).toBe(422);

    const markdown = await upload(
      key,
      new Blob(['# Shipping guide\n\n## Delivery times\n\nParcels arrive within three working days.\n'], {
        type: 'text/markdown',
      }),
      'shipping.md',
    );
    expect(markdown.status).toBe(202);
    expect(markdown.json).toMatchObject({ status: 'queued', source: 'file', format: 'markdown' });
    const text = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/documents`, {
      key,
      body: { title: 'Refund policy', text: 'Refunds are paid back within 14 days of the return.' },
    });
    expect(text.status).toBe(202);

    expect(await ready(markdown.json.id)).toMatchObject({ status: 'ready', progress: 1 });
    expect(await ready(text.json.id)).toMatchObject({ status: 'ready' });

    const search = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/search`, {
      key,
      body: { query: 'how many days until my parcel arrives', top_k: 2 },
    });
    expect(search.status).toBe(200);
    expect(search.json.vector_search).toMatch(/^(pgvector|builtin)$/);
    expect(search.json.data[0]).toMatchObject({
      object: 'knowledge_chunk',
      document_id: markdown.json.id,
      heading_path: expect.arrayContaining(['Delivery times']),
    });
    const refunds = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/search`, {
      key,
      body: { query: 'refund', top_k: 1 },
    });
    expect(refunds.json.data[0]).toMatchObject({ title: 'Refund policy' });

    const chunks = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents/${markdown.json.id}/chunks`, { key });
    expect(chunks.json.data[0].text).toContain('three working days');
    const base = await call(h, 'GET', `/v1/knowledge-bases/${baseId}`, { key });
    expect(base.json).toMatchObject({ document_count: 2 });
    expect(base.json.chunk_count).toBeGreaterThanOrEqual(2);
    expect((await call(h, 'GET', '/readyz')).json.vector_search).toBe(search.json.vector_search);
  });

  it('refuses an oversized upload (413), an unsupported type, a private URL, and resyncing text', async () => {
    // An embedding model the caller names that cannot be used is their input's fault: 422 at the field.
    for (const embedding_model of ['nonsense', 'acme/some-model', 'local/other-model']) {
      const bad = await call(h, 'POST', '/v1/knowledge-bases', { key, body: { name: 'Bad', embedding_model } });
      expect([bad.status, bad.json.code, bad.json.errors?.[0]?.path]).toEqual([
        422,
        'validation_failed',
        '/embedding_model',
      ]);
    }
    const big = await upload(key, new Blob(['x'.repeat(200 * 1024)], { type: 'text/plain' }), 'big.txt');
    expect([big.status, big.json.code]).toEqual([413, 'document_too_large']);
    const image = await upload(
      key,
      new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }),
      'a.png',
    );
    expect([image.status, image.json.code]).toEqual([400, 'unsupported_document_type']);
    const url = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/documents`, {
      key,
      body: { url: 'http://169.254.169.254/latest/meta-data' },
    });
    expect([url.status, url.json.code]).toEqual([400, 'egress_forbidden_address']);
    const docs = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents`, { key });
    expect(docs.json.data).toHaveLength(2); // nothing half-written by the refusals
    const resync = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/documents/${docs.json.data[0].id}/resync`, {
      key,
    });
    expect([resync.status, resync.json.code]).toEqual([409, 'document_not_resyncable']);
  });

  it('another tenant gets 404 for the base and its documents, and its own search finds nothing of them', async () => {
    const docs = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents`, { key });
    const documentId = docs.json.data[0].id;
    expect((await call(h, 'GET', `/v1/knowledge-bases/${baseId}`, { key: other })).status).toBe(404);
    expect((await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents/${documentId}`, { key: other })).status).toBe(
      404,
    );
    expect(
      (await call(h, 'POST', `/v1/knowledge-bases/${baseId}/search`, { key: other, body: { query: 'refund' } })).status,
    ).toBe(404);
    const own = await call(h, 'POST', '/v1/knowledge-bases', { key: other, body: { name: 'Help center' } });
    expect(own.status).toBe(201);
    const search = await call(h, 'POST', `/v1/knowledge-bases/${own.json.id}/search`, {
      key: other,
      body: { query: 'refund parcel' },
    });
    expect(search.json.data).toEqual([]);
    expect((await call(h, 'GET', '/v1/knowledge-bases', { key: other })).json.data).toHaveLength(1);
  });
});
