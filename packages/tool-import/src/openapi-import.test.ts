import { readFileSync } from 'node:fs';
import { loadAgentConfig } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { createEgressPolicy } from '@agentry/http-tools';
import { type RecordingServer, startRecordingServer } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { importTools } from './index.ts';

/**
 * Fixtures: the Swagger Petstore (3.0 and 2.0) and two real-world documents (USPTO Data Set API,
 * OpenAPI 3.0; Bump.sh's Train Travel API, OpenAPI 3.1), copied from the npm package
 * `@readme/oas-examples@8.2.2` (see fixtures/README.md).
 */
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

function expectLoads(tools: ToolConfig[]) {
  for (let i = 0; i < tools.length; i += 100) {
    const { config } = loadAgentConfig({ basic_settings: { name: 'Imported' }, tools: tools.slice(i, i + 100) });
    expect(config.tools.length).toBe(Math.min(100, tools.length - i));
  }
}

const tool = (tools: ToolConfig[], name: string) => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('OpenAPI import', () => {
  it('turns every operation of the Petstore (3.0) into a loadable tool', async () => {
    const result = await importTools({ kind: 'openapi', document: fixture('petstore-3.0') });
    expect(result.operations).toHaveLength(20);
    expect(result.tools).toHaveLength(20);
    expect(result.operations.every((o) => o.selected)).toBe(true);
    expectLoads(result.tools);
    expect(new Set(result.tools.map((t) => t.name)).size).toBe(20);

    const get = tool(result.tools, 'getPetById');
    expect(get.endpoint).toMatchObject({
      url: 'http://petstore.swagger.io/v2/pet/{{petId}}',
      method: 'GET',
      headers: { api_key: '{{secrets.SWAGGER_PETSTORE_API_KEY}}' },
    });
    expect(get.parameters).toMatchObject({ properties: { petId: { type: 'integer' } }, required: ['petId'] });

    const find = tool(result.tools, 'findPetsByStatus');
    expect(find.endpoint?.query_params).toEqual({ status: '{{status}}' });

    const add = tool(result.tools, 'addPet');
    expect(add.endpoint).toMatchObject({ method: 'POST', url: 'http://petstore.swagger.io/v2/pet' });
    expect(add.endpoint?.body).toMatchObject({ name: '{{name}}', photoUrls: '{{photoUrls}}' });
    expect(add.endpoint?.headers).toEqual({ Authorization: 'Bearer {{secrets.SWAGGER_PETSTORE_PETSTORE_AUTH}}' });
    expect(add.parameters?.required).toEqual(['name', 'photoUrls']);

    expect(result.secrets.map((s) => s.name).sort()).toEqual([
      'SWAGGER_PETSTORE_API_KEY',
      'SWAGGER_PETSTORE_PETSTORE_AUTH',
    ]);
    // A form body cannot be carried over: the tool says so.
    expect(result.notes).toContainEqual({
      tool: 'uploadFile',
      message: expect.stringContaining('multipart/form-data'),
    });
  });

  it('gives the same tools for the Swagger 2.0 Petstore', async () => {
    const v3 = await importTools({ kind: 'openapi', document: fixture('petstore-3.0') });
    const v2 = await importTools({ kind: 'openapi', document: fixture('petstore-2.0') });
    expectLoads(v2.tools);
    expect(v2.tools.map((t) => t.name).sort()).toEqual(v3.tools.map((t) => t.name).sort());
    for (const t of v2.tools) {
      const same = tool(v3.tools, t.name);
      expect(t.endpoint?.method, t.name).toBe(same.endpoint?.method);
      expect(t.endpoint?.url, t.name).toBe(same.endpoint?.url);
      // The 2.0 Petstore's Pet.id is not read-only (the 3.0 one's is): a superset there.
      expect(Object.keys(t.parameters?.properties ?? {}), t.name).toEqual(
        expect.arrayContaining(Object.keys(same.parameters?.properties ?? {})),
      );
    }
  });

  it('reads YAML text and imports only the picked operations', async () => {
    const yaml = toYaml(fixture('petstore-3.0'));
    const result = await importTools(
      { kind: 'openapi', document: yaml },
      { operations: ['getPetById', 'deleteOrder'] },
    );
    expect(result.tools.map((t) => t.name)).toEqual(['getPetById', 'deleteOrder']);
    expect(result.operations.filter((o) => o.selected).map((o) => o.id)).toEqual(['getPetById', 'deleteOrder']);
    expect(result.operations).toHaveLength(20);
    // Only the secrets the picked tools read.
    expect(result.secrets.map((s) => s.name)).toEqual(['SWAGGER_PETSTORE_API_KEY']);
    await expect(importTools({ kind: 'openapi', document: yaml }, { operations: ['nope'] })).rejects.toMatchObject({
      code: 'validation_failed',
      issues: [{ path: '/operations/0', code: 'unknown_operation' }],
    });
  });

  it.each([
    ['uspto-3.0', 3],
    ['train-travel-3.1', 7],
    ['schema-circular-3.0', 3],
  ])('imports the real-world document %s: every operation a loadable tool', async (name, count) => {
    const result = await importTools({ kind: 'openapi', document: fixture(name) });
    expect(result.tools).toHaveLength(count);
    expectLoads(result.tools);
  });

  it('a body field named like a path parameter gets a body_ argument', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Clash', version: '1' },
      servers: [{ url: 'https://api.example.com' }],
      paths: {
        '/pets/{petId}': {
          put: {
            operationId: 'renamePet',
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['name'],
                    properties: { petId: { type: 'integer' }, name: { type: 'string' } },
                  },
                },
              },
            },
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    };
    const { tools } = await importTools({ kind: 'openapi', document: doc });
    expect(tools[0]!.endpoint).toMatchObject({
      url: 'https://api.example.com/pets/{{petId}}',
      method: 'PUT',
      body: { petId: '{{body_petId}}', name: '{{name}}' },
    });
    expect(tools[0]!.parameters?.required).toEqual(['petId', 'name']);
  });

  it('says what it left out of a schema (a circular $ref, a keyword outside the subset)', async () => {
    const circular = await importTools({ kind: 'openapi', document: fixture('schema-circular-3.0') });
    expect(circular.notes.some((n) => n.message.includes('circular $ref'))).toBe(true);
    const travel = await importTools({ kind: 'openapi', document: fixture('train-travel-3.1') });
    expect(travel.notes).toContainEqual({
      tool: 'create-booking-payment',
      message: expect.stringContaining('unevaluatedProperties'),
    });
  });

  it('refuses an invalid document with import_document_invalid', async () => {
    await expect(importTools({ kind: 'openapi', document: { openapi: '3.0.0', paths: 7 } })).rejects.toMatchObject({
      code: 'import_document_invalid',
      status: 422,
    });
    await expect(importTools({ kind: 'openapi', document: 'not: [valid' })).rejects.toMatchObject({
      code: 'import_document_invalid',
    });
    await expect(importTools({ kind: 'openapi', document: { hello: 'world' } })).rejects.toMatchObject({
      code: 'import_document_invalid',
    });
  });

  it('refuses a 10 MiB document with import_too_large, as text and as an object', async () => {
    const big = fixture('petstore-3.0');
    (big.info as Record<string, unknown>).description = 'x'.repeat(10 * 1024 * 1024);
    await expect(importTools({ kind: 'openapi', document: big })).rejects.toMatchObject({
      code: 'import_too_large',
      status: 413,
    });
    await expect(importTools({ kind: 'openapi', document: JSON.stringify(big) })).rejects.toMatchObject({
      code: 'import_too_large',
    });
  });

  it('refuses a document with 2,000 operations with import_too_many_operations', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) {
      paths[`/items/${i}`] = {
        get: { operationId: `get${i}`, responses: { 200: { description: 'ok' } } },
        delete: { operationId: `delete${i}`, responses: { 200: { description: 'ok' } } },
      };
    }
    const doc = { openapi: '3.0.3', info: { title: 'Big', version: '1' }, paths };
    await expect(importTools({ kind: 'openapi', document: doc })).rejects.toMatchObject({
      code: 'import_too_many_operations',
      status: 422,
    });
  });

  it('imports 1,000 operations (the limit)', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) {
      paths[`/items/${i}`] = { get: { operationId: `get${i}`, responses: { 200: { description: 'ok' } } } };
    }
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Big', version: '1' },
      servers: [{ url: 'https://x.example' }],
      paths,
    };
    const result = await importTools({ kind: 'openapi', document: doc });
    expect(result.tools).toHaveLength(1000);
  });
});

describe('OpenAPI import over the network (only through the egress guard)', () => {
  let server: RecordingServer;
  const allowLoopback = createEgressPolicy({ allowlist: ['127.0.0.1'] });
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(() => server.close());

  it('refuses a document URL on a private or loopback address', async () => {
    for (const url of [`${server.url}/openapi.json`, 'http://10.0.0.7/openapi.json', 'http://169.254.169.254/latest']) {
      await expect(importTools({ kind: 'openapi', url })).rejects.toMatchObject({ code: 'egress_forbidden_address' });
    }
    await expect(importTools({ kind: 'openapi', url: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: 'egress_forbidden_scheme',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a remote $ref to a private address, before any other work', async () => {
    const doc = fixture('petstore-3.0');
    const schemas = (doc.components as Record<string, Record<string, unknown>>).schemas!;
    schemas.Pet = { $ref: 'http://127.0.0.1:9/schemas.json#/Pet' };
    await expect(importTools({ kind: 'openapi', document: doc })).rejects.toMatchObject({
      code: 'egress_forbidden_address',
    });
  });

  it('fetches a document and its remote $refs where the allowlist allows it, relative servers resolved', async () => {
    const doc = fixture('petstore-3.0');
    doc.servers = [{ url: '/v2' }];
    const schemas = (doc.components as Record<string, Record<string, unknown>>).schemas!;
    const pet = schemas.Pet;
    // Pet's own refs (#/components/schemas/Category) resolve inside schemas.json.
    const remote = { components: { schemas: { Pet: pet, Category: schemas.Category, Tag: schemas.Tag } } };
    schemas.Pet = { $ref: 'schemas.json#/components/schemas/Pet' };
    server.respondWith((req) =>
      req.path === '/api/openapi.json'
        ? { body: doc }
        : req.path === '/api/schemas.json'
          ? { body: remote }
          : { status: 404, body: {} },
    );
    const result = await importTools(
      { kind: 'openapi', url: `${server.url}/api/openapi.json` },
      { policy: allowLoopback },
    );
    expect(result.tools).toHaveLength(20);
    expect(tool(result.tools, 'getPetById').endpoint?.url).toBe(`${server.url}/v2/pet/{{petId}}`);
    expect(tool(result.tools, 'addPet').parameters?.properties?.category).toMatchObject({
      type: 'object',
      properties: { id: { type: 'integer' } },
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/api/openapi.json', '/api/schemas.json']);
  });

  it('a document URL that answers 404 is import_fetch_failed', async () => {
    server.respondWith(() => ({ status: 404, body: {} }));
    await expect(
      importTools({ kind: 'openapi', url: `${server.url}/missing.json` }, { policy: allowLoopback }),
    ).rejects.toMatchObject({ code: 'import_fetch_failed', status: 502 });
  });

  it('bounds the imports waiting for a worker: past 2 running and 16 waiting, 503 server_busy at once', async () => {
    const document = fixture('petstore-3.0');
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, () => importTools({ kind: 'openapi', document })),
    );
    const refused = settled.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as { code?: string; status?: number }] : [],
    );
    expect(refused.map((e) => [e.code, e.status])).toEqual([
      ['server_busy', 503],
      ['server_busy', 503],
    ]);
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(18);
  }, 120_000);
});
