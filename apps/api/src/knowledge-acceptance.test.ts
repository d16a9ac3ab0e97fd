import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, runModes, startHarness } from './test-support/harness.ts';

/**
 * Issue #20's acceptance, through the public API with the fake model: a PDF and a Markdown file
 * uploaded, a question whose answer is only on the PDF's second page, a Chinese document and
 * question, and what the model was sent and what the answer cites.
 */
const modes = runModes('knowledge-acceptance');

async function guidePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Trailblazer tent guide');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = [
    ['Setting up', 'Unfold the inner tent and clip it to the frame before staking the corners.'],
    ['Warranty', 'The aluminium poles of the Trailblazer tent carry a seven-year warranty against breakage.'],
    ['Cleaning', 'Rinse the fly with cold water and let it dry in the shade before packing it away.'],
  ];
  for (const [heading, text] of pages) {
    const page = pdf.addPage([595, 842]);
    page.drawText(heading!, { x: 50, y: 780, size: 20, font });
    page.drawText(text!, { x: 50, y: 740, size: 11, font, maxWidth: 495, lineHeight: 14 });
  }
  return pdf.save();
}

const SHIPPING_MD = `# Shipping

## Delivery times
Orders inside the EU arrive within three to five business days.

## Costs
Shipping is free above 50 euros; below that it costs 4.90 euros.
`;

const RETURNS_ZH = `# 退货政策

## 退货期限
自收货之日起三十天内可以无理由退货，商品须保持原包装。

## 退款方式
退款将在收到退货后七个工作日内原路退回。
`;

/** The marker the auto-retrieved sources gave the chunk that holds `needle`, read from the model's request. */
function markerOf(request: any, needle: string): number | undefined {
  const text = JSON.stringify(request.body.messages);
  const at = text.indexOf(needle);
  if (at < 0) return undefined;
  const markers = [...text.slice(0, at).matchAll(/\[(\d+)\]/g)];
  return markers.length ? Number(markers.at(-1)![1]) : undefined;
}

describe.each(modes)('knowledge bases end to end (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let baseId: string;
  let agentId: string;

  const upload = async (bytes: Uint8Array, filename: string, type: string) => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(bytes)], { type }), filename);
    const res = await fetch(`${h.platform.url}/v1/knowledge-bases/${baseId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const json: any = await res.json();
    expect(res.status, JSON.stringify(json)).toBe(202);
    return json.id as string;
  };

  const waitReady = async (ids: string[]) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const list = await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents`, { key });
      const docs = list.json.data.filter((d: any) => ids.includes(d.id));
      const failed = docs.find((d: any) => d.status === 'failed');
      if (failed) throw new Error(`document failed: ${JSON.stringify(failed.error)}`);
      if (docs.length === ids.length && docs.every((d: any) => d.status === 'ready')) return docs;
      if (Date.now() > deadline) throw new Error(`not ready: ${JSON.stringify(docs)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const ask = async (content: string) => {
    const conv = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id;
    const res = await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key, body: { content } });
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    return { conv, answer: res.json };
  };

  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    const base = await call(h, 'POST', '/v1/knowledge-bases', { key, body: { name: 'Help center' } });
    expect(base.status, JSON.stringify(base.json)).toBe(201);
    baseId = base.json.id;
    const agent = await call(h, 'POST', '/v1/agents', {
      key,
      body: {
        publish: true,
        config: {
          basic_settings: { name: 'Helper', background: 'Answers customers from the help center' },
          knowledge: { bases: ['Help center'], mode: 'auto', top_k: 3 },
        },
      },
    });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    agentId = agent.json.id;
  }, 60_000);
  afterAll(() => h?.close());

  it('answers from the PDF only: the model is sent the page’s chunk and the answer cites the PDF and its page', async () => {
    const docs = await waitReady([
      await upload(await guidePdf(), 'trailblazer-guide.pdf', 'application/pdf'),
      await upload(new TextEncoder().encode(SHIPPING_MD), 'shipping.md', 'text/markdown'),
    ]);
    expect(docs.find((d: any) => d.format === 'pdf')).toMatchObject({ pages: 3, title: 'Trailblazer tent guide' });
    h.llm.setResponder((req) => {
      const n = markerOf(req, 'seven-year warranty');
      return { type: 'reply', text: n ? `The poles have a seven-year warranty [${n}].` : 'I do not know.' };
    });
    try {
      const llmBefore = h.llm.requests.length;
      const { conv, answer } = await ask('How long is the warranty on the tent poles?');
      expect(h.llm.requests.length).toBe(llmBefore + 1);
      expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('seven-year warranty against breakage');
      expect(answer.reply).toMatch(/seven-year warranty \[\d+\]/);
      expect(answer.citations).toEqual([
        expect.objectContaining({ title: 'Trailblazer tent guide', page: 2, url: null }),
      ]);
      expect(answer.citations[0].snippet).toContain('seven-year warranty');
      // The transcript keeps them with the message.
      const transcript = (await call(h, 'GET', `/v1/conversations/${conv}`, { key })).json.messages;
      expect(transcript.at(-1).citations).toEqual(answer.citations);
    } finally {
      h.llm.setResponder(undefined);
    }
  });

  it('a Chinese document and question work the same', async () => {
    const id = await upload(new TextEncoder().encode(RETURNS_ZH), '退货政策.md', 'text/markdown');
    await waitReady([id]);
    const search = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/search`, {
      key,
      body: { query: '退款多久能到账？', top_k: 3 },
    });
    expect(search.status).toBe(200);
    expect(search.json.data[0]).toMatchObject({ document_id: id, heading_path: ['退货政策', '退款方式'] });
    h.llm.setResponder((req) => {
      const n = markerOf(req, '七个工作日');
      return { type: 'reply', text: n ? `退款会在七个工作日内退回 [${n}]。` : '我不知道。' };
    });
    try {
      const { answer } = await ask('退款多久能到账？');
      expect(answer.reply).toMatch(/七个工作日内退回 \[\d+\]/);
      expect(answer.citations).toEqual([expect.objectContaining({ document_id: id, title: '退货政策' })]);
    } finally {
      h.llm.setResponder(undefined);
    }
  });

  it('a corrupt PDF ends failed with a reason, and nothing of it is searchable', async () => {
    const corrupt = new TextEncoder().encode('%PDF-1.7\n1 0 obj << /Type /Catalog >> zebra-crossing-7731 garbage');
    const id = await upload(corrupt, 'broken.pdf', 'application/pdf');
    const deadline = Date.now() + 60_000;
    let doc: any;
    do {
      await new Promise((r) => setTimeout(r, 100));
      doc = (await call(h, 'GET', `/v1/knowledge-bases/${baseId}/documents/${id}`, { key })).json;
    } while (doc.status !== 'failed' && doc.status !== 'ready' && Date.now() < deadline);
    expect(doc).toMatchObject({ status: 'failed', chunk_count: 0, error: { code: 'document_unreadable' } });
    expect(doc.error.message).toMatch(/PDF/);
    const search = await call(h, 'POST', `/v1/knowledge-bases/${baseId}/search`, {
      key,
      body: { query: 'zebra-crossing-7731', top_k: 10 },
    });
    expect(search.json.data.filter((c: any) => c.document_id === id)).toEqual([]);
  });
});
