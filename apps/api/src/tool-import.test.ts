import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, postRaw, startHarness } from './test-support/harness.ts';

const petstore = () =>
  JSON.parse(
    readFileSync(new URL('../../../packages/tool-import/src/fixtures/petstore-3.0.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

describe('POST /v1/tools/import', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('imports the Petstore; an agent with the imported tools calls the endpoint the document describes', async () => {
    const doc = petstore();
    doc.servers = [{ url: `${h.endpoint.url}/v2` }];
    const imported = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', document: doc }, operations: ['findPetsByStatus', 'addPet'] },
    });
    expect(imported.status).toBe(200);
    expect(imported.json.operations).toHaveLength(20);
    expect(imported.json.tools.map((t: { name: string }) => t.name)).toEqual(['addPet', 'findPetsByStatus']);
    expect(imported.json.secrets).toEqual([
      { name: 'SWAGGER_PETSTORE_PETSTORE_AUTH', description: expect.stringContaining('oauth2') },
    ]);
    // Nothing was saved.
    expect((await call(h, 'GET', '/v1/agents', { key })).json.data).toHaveLength(0);

    expect(
      (await call(h, 'PUT', '/v1/secrets/SWAGGER_PETSTORE_PETSTORE_AUTH', { key, body: { value: 'pet-token' } }))
        .status,
    ).toBe(201);
    const created = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: { basic_settings: { name: 'Pet shop' }, tools: imported.json.tools } },
    });
    expect(created.status).toBe(201);
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: created.json.id } });
    h.endpoint.reset();
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [{ id: 'c1', name: 'findPetsByStatus', arguments: { status: ['sold'] } }],
      },
      {
        type: 'reply',
        toolCalls: [
          {
            id: 'c2',
            name: 'addPet',
            arguments: { name: 'Rex', photoUrls: ['https://img.example/rex.png'], status: 'available' },
          },
        ],
      },
      { type: 'reply', text: 'Rex is listed.' },
    );
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'List sold pets, then add Rex' },
    });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ status: 'completed', reply: 'Rex is listed.' });
    expect(sent.json.tool_calls.map((t: { is_error: boolean }) => t.is_error)).toEqual([false, false]);
    const [find, add] = await h.endpoint.waitForRequests(2);
    expect(find).toMatchObject({ method: 'GET', path: '/v2/pet/findByStatus', query: { status: 'sold' } });
    expect(find!.bodyText).toBe('');

    expect(find!.headers.authorization).toBe('Bearer pet-token');
    expect(add).toMatchObject({
      method: 'POST',
      path: '/v2/pet',
      json: { name: 'Rex', photoUrls: ['https://img.example/rex.png'], status: 'available' },
    });
  });

  it('imports a cURL command, with the agents write scope', async () => {
    const readOnly = await call(h, 'POST', '/v1/api-keys', { key, body: { kind: 'secret', scopes: ['agents:read'] } });
    const writer = await call(h, 'POST', '/v1/api-keys', { key, body: { kind: 'secret', scopes: ['agents:write'] } });
    const body = {
      source: { kind: 'curl', command: `curl -G https://api.example.com/search --data-urlencode 'q=red shoes' -u a:b` },
    };
    const refused = await call(h, 'POST', '/v1/tools/import', { key: readOnly.json.key, body });
    expect(refused.status).toBe(403);
    const ok = await call(h, 'POST', '/v1/tools/import', { key: writer.json.key, body });
    expect(ok.status).toBe(200);
    expect(ok.json.tools[0].endpoint).toMatchObject({
      method: 'GET',
      url: 'https://api.example.com/search',
      query_params: { q: '{{q}}' },
      headers: { Authorization: 'Basic {{secrets.EXAMPLE_BASIC_AUTH}}' },
    });
  });

  it('refuses a document URL on a private address, and a remote $ref to one', async () => {
    const byUrl = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', url: 'http://10.20.30.40/openapi.json' } },
    });
    expect(byUrl.status).toBe(400);
    expect(byUrl.json.code).toBe('egress_forbidden_address');
    const doc = petstore();
    (doc.components as { schemas: Record<string, unknown> }).schemas.Pet = {
      $ref: 'http://192.168.1.1/schemas.json#/Pet',
    };
    const byRef = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', document: doc } },
    });
    expect(byRef.status).toBe(400);
    expect(byRef.json.code).toBe('egress_forbidden_address');
  });

  it('answers the limits with their codes: 10 MiB, 2,000 operations, an invalid document', async () => {
    const big = JSON.stringify({ source: { kind: 'openapi', document: 'x'.repeat(10 * 1024 * 1024) } });
    const tooLarge = await postRaw(`${h.platform.url}/v1/tools/import`, key, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.code).toBe('import_too_large');
    // Within the body bound but over the document's 5 MiB.
    const doc = petstore();
    (doc.info as Record<string, unknown>).description = 'y'.repeat(5.5 * 1024 * 1024);
    const overDoc = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', document: doc } },
    });
    expect(overDoc.status).toBe(413);
    expect(overDoc.json.code).toBe('import_too_large');

    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) paths[`/r/${i}`] = { get: { responses: { 200: { description: 'ok' } } } };
    const many = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', document: { openapi: '3.0.3', info: { title: 'x', version: '1' }, paths } } },
    });
    expect(many.status).toBe(422);
    expect(many.json.code).toBe('import_too_many_operations');

    const invalid = await call(h, 'POST', '/v1/tools/import', {
      key,
      body: { source: { kind: 'openapi', document: 'openapi: 3.0.0\npaths: 12\n' } },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.json.code).toBe('import_document_invalid');
    // Other routes keep their 1 MiB bound.
    const other = await postRaw(
      `${h.platform.url}/v1/agents/validate`,
      key,
      JSON.stringify({ config: 'z'.repeat(2 * 1024 * 1024) }),
    );
    expect(other.status).toBe(413);
    expect(other.json.code).toBe('payload_too_large');
  });
});
