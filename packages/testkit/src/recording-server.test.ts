import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RecordingServer, startRecordingServer } from './recording-server.ts';

let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('recording server', () => {
  it('records method, path, query, headers and JSON, and answers the default', async () => {
    const res = await fetch(`${server.url}/contacts/save?source=test&x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, received: { email: 'ada@example.com' } });
    const [req] = server.requests;
    expect(req).toMatchObject({
      method: 'POST',
      path: '/contacts/save',
      query: { source: 'test', x: '1' },
      bodyText: '{"email":"ada@example.com"}',
      json: { email: 'ada@example.com' },
    });
    expect(req?.headers['x-tenant']).toBe('acme');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.receivedAt).toBeGreaterThan(Date.now() - 10_000);
  });

  it('leaves json undefined for non-JSON or empty bodies', async () => {
    await fetch(`${server.url}/form`, { method: 'POST', body: 'a=1&b=2' });
    await fetch(`${server.url}/get`);
    expect(server.requests.map((r) => [r.method, r.bodyText, r.json])).toEqual([
      ['POST', 'a=1&b=2', undefined],
      ['GET', '', undefined],
    ]);
  });

  it('answers with a custom status, headers and body', async () => {
    server.respondWith(async (req) => ({
      status: 201,
      headers: { 'x-custom': 'yes' },
      body: { id: 7, path: req.path },
    }));
    const res = await fetch(`${server.url}/things`, { method: 'PUT', body: '{}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-custom')).toBe('yes');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ id: 7, path: '/things' });
  });

  it('sends string bodies verbatim and no body when none is given', async () => {
    server.respondWith((req) => (req.path === '/text' ? { status: 503, body: 'down' } : { status: 204 }));
    const text = await fetch(`${server.url}/text`);
    expect([text.status, await text.text()]).toEqual([503, 'down']);
    const empty = await fetch(`${server.url}/empty`, { method: 'DELETE' });
    expect([empty.status, await empty.text()]).toEqual([204, '']);
  });

  it('delays the answer by delayMs', async () => {
    server.respondWith(() => ({ body: { slow: true }, delayMs: 120 }));
    const started = Date.now();
    await fetch(`${server.url}/slow`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('answers 500 when the responder throws', async () => {
    server.respondWith(() => {
      throw new Error('handler bug');
    });
    const res = await fetch(`${server.url}/x`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, error: 'handler bug' });
  });

  it('waitForRequests resolves once enough requests arrived', async () => {
    const waiting = server.waitForRequests(2, 2000);
    void fetch(`${server.url}/a`, { method: 'POST', body: '1' });
    setTimeout(() => void fetch(`${server.url}/b`, { method: 'POST', body: '2' }), 30);
    const requests = await waiting;
    expect(requests.map((r) => r.json).sort()).toEqual([1, 2]);
    expect(await server.waitForRequests(1)).toHaveLength(2);
  });

  it('waitForRequests rejects after the timeout', async () => {
    await expect(server.waitForRequests(1, 50)).rejects.toThrow(/expected 1 request\(s\) within 50 ms, got 0/);
  });

  it('reset clears the requests and restores the default answer', async () => {
    server.respondWith(() => ({ status: 418 }));
    await fetch(`${server.url}/tea`);
    server.reset();
    expect(server.requests).toHaveLength(0);
    const res = await fetch(`${server.url}/coffee`, { method: 'POST', body: '{"a":1}' });
    expect(await res.json()).toEqual({ ok: true, received: { a: 1 } });
  });

  it('survives a caller that gives up while it delays', async () => {
    server.respondWith(() => ({ body: {}, delayMs: 300 }));
    await expect(fetch(`${server.url}/slow`, { signal: AbortSignal.timeout(30) })).rejects.toThrow();
    server.reset();
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
  });
});
