import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { availableServices } from '@agentry/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, tenantWithOwner } from './test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, repoRoot, seedConfig, startHarness } from './test-support/harness.ts';
import { jsonSchemaArbitrary } from './test-support/json-schema-arbitrary.ts';
import { operationsOf, type SpecOperation } from './test-support/openapi-check.ts';

/**
 * Property-based fuzzing of every operation in /openapi.json (so a new route is fuzzed the day it
 * is documented): bodies generated from the route's request schema or its example, then hostile
 * mutations (deep nesting, lone surrogates, huge numbers, NUL, wrong types, duplicate and
 * prototype keys, huge strings, invalid UTF-8, wrong content types) and hostile path and query
 * values, sent through the real app as a secret key, a dashboard session, a publishable key, the
 * operator and nobody. Whatever comes in, the answer is never a 5xx, and an error is problem+json
 * with a `code` (the OpenAI-compatible routes: OpenAI's `{error: {code}}`).
 *
 * Runs per operation: `AGENTRY_FUZZ_RUNS` (default 10, about 35 s on a loaded 2-core machine); a
 * failure prints the request and the seed (`AGENTRY_FUZZ_SEED` replays it).
 */

const RUNS = Number(process.env.AGENTRY_FUZZ_RUNS) || 10;
const SEED = process.env.AGENTRY_FUZZ_SEED ? Number(process.env.AGENTRY_FUZZ_SEED) : undefined;
const mode = availableServices().postgres ? 'embedded-postgres' : 'embedded';
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'https://shop.example';
/** 503s that say what this checkout lacks (`pnpm start` builds it), not what the request did. */
const ENVIRONMENT_503 = ['widget_not_built'];
/** Replaced by a raw JSON fragment once the body is serialised. */
const SENTINEL = '\u0001FUZZ\u0001';

type Auth = 'key' | 'session' | 'publishable' | 'operator' | 'none';

interface FuzzRequest {
  auth: Auth;
  path: string;
  contentType: string | undefined;
  body: string | Uint8Array | undefined;
  /** Extra headers, hostile ones included (they win over the caller's). */
  headers: Record<string, string>;
  /** What was done to the body, for the failure report. */
  mutation: string;
}

/** Raw JSON fragments that have broken parsers, walkers, hashes and Postgres. */
const FRAGMENTS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '123456789012345678901234567890',
  '9007199254740993',
  '"\\ud800"',
  '"a\\udfff\\ud800b"',
  '{"\\udc00":1}',
  '"a\\u0000b"',
  '{"a\\u0000":1}',
  '"{{{{x}}}"',
  '"{{#each this}}{{/each}}"',
  '"{{> partial}}"',
  '"{{"',
  '"{{{email}}}"',
  '"{{lookup this \\"constructor\\"}}"',
  '"{{constructor.constructor}}"',
  '"{{#with __proto__}}{{/with}}"',
  '"{{default}}"',
  '"{email"',
  '"{context.__proto__}"',
  '"{secret.}"',
  '"http://[::1]:99999/{email}"',
  '"(a+)+$"',
  '"$' + '{process.exit()}"',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '"__proto__"',
  'true',
  'null',
  '{}',
  '[]',
  '""',
  '"2026-02-30T25:61:61Z"',
  '"00000000-0000-0000-0000-000000000000"',
];

/** A fragment: a fixed one, nesting from just past the limit to 20,000 levels, or a huge string. */
const fragment: fc.Arbitrary<{ name: string; text: string }> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FRAGMENTS).map((text) => ({ name: text, text })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 60, max: 20_000 }), fc.boolean()).map(([n, arrays]) => ({
      name: `${n} levels of ${arrays ? 'arrays' : 'objects'}`,
      text: arrays ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 10_000, max: 600_000 })
      .map((n) => ({ name: `a ${n}-character string`, text: `"${'x'.repeat(n)}"` })),
  },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ name: 'a value of another type', text: JSON.stringify(v) })),
  },
);

const BODY_MUTATIONS = ['none', 'replace', 'prototype', 'duplicate', 'invalid_utf8', 'truncate', 'oversize'] as const;

/** The agent configs in configs/ (not the schema). */
function exampleConfigs(): Array<Record<string, unknown>> {
  const dir = join(repoRoot, 'configs');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.includes('schema'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

/** Places in a JSON value (object members and array items), breadth first, at most 1000. */
function places(value: unknown): Array<Array<string | number>> {
  const found: Array<Array<string | number>> = [[]];
  const queue: Array<[unknown, Array<string | number>]> = [[value, []]];
  while (queue.length > 0 && found.length < 1000) {
    const [node, path] = queue.shift()!;
    if (node === null || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const at = [...path, Array.isArray(node) ? Number(key) : key];
      found.push(at);
      queue.push([child, at]);
    }
  }
  return found;
}

/** `value` with the thing at `path` replaced (a copy; the root when `path` is empty). */
function setAt(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = replacement;
  return copy;
}

/** A body for an operation: its example or a value of its schema, then maybe a hostile mutation. */
function bodyArbitrary(op: SpecOperation, document: Record<string, any>) {
  const media = op.op.requestBody?.content?.['application/json'];
  // The repository's example configs reach the config loader's later checks (templates, tools).
  const takesConfig = JSON.stringify(media?.schema ?? {}).includes('#/components/schemas/AgentConfig');
  const base = media
    ? fc.oneof(
        { weight: 2, arbitrary: fc.constant(media.example as unknown) },
        ...(takesConfig
          ? [
              {
                weight: 3,
                arbitrary: fc.constantFrom(...exampleConfigs()).map((config) => ({ ...media.example, config })),
              },
            ]
          : []),
        { weight: 3, arbitrary: jsonSchemaArbitrary(media.schema, document) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      )
    : fc.jsonValue({ maxDepth: 2 });
  return fc
    .record({
      value: base,
      mutation: fc.constantFrom(...BODY_MUTATIONS),
      fragment,
      pick: fc.nat(),
      bytes: fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]),
    })
    .map(({ value, mutation, fragment: f, pick, bytes }) => {
      const all = places(value);
      const path = all[pick % all.length]!;
      const where = `/${path.join('/')}`;
      switch (mutation) {
        case 'replace':
          return {
            body: JSON.stringify(setAt(value, path, SENTINEL)).replace(JSON.stringify(SENTINEL), f.text),
            mutation: `${where} = ${f.name.slice(0, 60)}`,
          };
        case 'prototype': {
          const objects = all.filter((p) => {
            const node = p.reduce<any>((n, k) => n?.[k], value);
            return node !== null && typeof node === 'object' && !Array.isArray(node);
          });
          const target = objects[pick % Math.max(objects.length, 1)];
          if (!target) return { body: JSON.stringify(value), mutation: 'none' };
          const text = JSON.stringify(setAt(value, [...target, SENTINEL], 1));
          return {
            body: text.replace(
              `${JSON.stringify(SENTINEL)}:1`,
              '"__proto__":{"admin":true,"role":"owner"},"constructor":{"prototype":{"polluted":1}}',
            ),
            mutation: `prototype keys at /${target.join('/')}`,
          };
        }
        case 'duplicate': {
          const text = JSON.stringify(value);
          const key = value !== null && typeof value === 'object' ? Object.keys(value)[0] : undefined;
          if (!text.startsWith('{') || key === undefined) return { body: text, mutation: 'none' };
          return {
            body: `{${JSON.stringify(key)}:${f.text},${text.slice(1, -1)},${JSON.stringify(key)}:${f.text}}`,
            mutation: `duplicate key ${key} = ${f.name.slice(0, 60)}`,
          };
        }
        case 'invalid_utf8': {
          const encoded = Buffer.from(JSON.stringify(value));
          const at = pick % (encoded.length + 1);
          return {
            body: new Uint8Array(Buffer.concat([encoded.subarray(0, at), Buffer.from(bytes), encoded.subarray(at)])),
            mutation: `bytes ${bytes.map((b) => b.toString(16)).join(' ')} at ${at}`,
          };
        }
        case 'truncate': {
          const text = JSON.stringify(value);
          return { body: text.slice(0, pick % (text.length + 1)), mutation: 'truncated' };
        }
        case 'oversize':
          return { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024), value }), mutation: 'over 1 MiB' };
        default:
          return { body: JSON.stringify(value), mutation: 'none' };
      }
    });
}

/** Path and query values that have broken routers, decoders and Postgres. */
const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%ED%B0%80x',
    '%FF',
    '%C0%AF',
    '%',
    '%zz',
    '%2F',
    '%2e%2e',
    '%F0%9F%98%80',
    '-1',
    '0',
    '1e400',
    '99999999999999999999999',
    'null',
    '__proto__',
    'constructor',
    '%20',
    "'%3B%20drop%20table%20tenants%3B--",
    '%3Cscript%3E',
    'x'.repeat(5000),
    '00000000-0000-0000-0000-000000000000',
    '00000000-0000-0000-0000-00000000000g',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => encodeURIComponent(s.toWellFormed()) || 'x'),
);

/** Header values: what node may send (no control characters), hostile for the API. */
const hostileHeader: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    'x'.repeat(300),
    '00000000-0000-0000-0000-000000000000',
    '1e400',
    '-1',
    'null',
    'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4IiwiZXhwIjo5OTk5OTk5OTk5fQ.',
    'Bearer \u00ff\u00fe',
  ),
  fc.string({
    unit: fc
      .integer({ min: 0x21, max: 0xff })
      .filter((c) => c < 0x7f || c > 0x9f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 60,
  }),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'application/jsonx',
];

/**
 * One request on its own connection, with node:http: unlike fetch it reads an answer the server
 * gives before the upload is finished (413, 401), and a closed connection cannot fail the next
 * request. An event stream is answered as soon as its headers arrive.
 */
function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, timeout: 15_000 });
    req.on('response', (res) => {
      const type = res.headers['content-type'] ?? '';
      if (type.startsWith('text/event-stream')) {
        res.destroy();
        return resolve({ status: res.statusCode ?? 0, type, text: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 15 s')));
    let answered = false;
    req.on('response', () => {
      answered = true;
    });
    req.on('error', (error) => {
      // The server may answer and close before it has read a body it refuses (an oversize one):
      // then the answer counts, if it came.
      const early = 'code' in error && (error.code === 'EPIPE' || error.code === 'ECONNRESET');
      if (!early) reject(error);
      else setTimeout(() => answered || reject(error), 2000);
    });
    req.end(body);
  });
}

/** An error and its causes, one line. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: any = error; e && parts.length < 4; e = e.cause) parts.push(String(e.message ?? e));
  return parts.join(' ← ');
}

describe(`property-based fuzzing of every route in /openapi.json (${mode})`, () => {
  let h: Harness;
  let document: Record<string, any>;
  let key: string;
  let pk: string;
  let owner: Browser;
  let tenantId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await startHarness(mode, 'openai', {
      env: { RUN_WAIT_MS: '2000', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_END_USER_PER_MINUTE: '1000000' },
    });
    h.llm.setResponder(() => ({ type: 'reply', text: 'Fine.' }));
    document = (await call(h, 'GET', '/openapi.json')).json;
    const tenant = await tenantWithOwner(h, 'Fuzz', 'owner@fuzz.test', PASSWORD);
    ({ key, owner, id: tenantId } = tenant);
    const secretName = 'FUZZ_SIGNING';
    expect(
      (await call(h, 'PUT', `/v1/secrets/${secretName}`, { key, body: { value: 'a-signing-secret' } })).status,
    ).toBe(201);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    config.webhooks = [{ url: `${h.endpoint.url}/hooks`, events: ['run.completed'], signing_secret: secretName }];
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status, JSON.stringify(agent.json)).toBe(201);
    const conversation = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    const run = await call(h, 'POST', `/v1/conversations/${conversation.json.id}/messages`, {
      key,
      body: { content: 'Hello' },
    });
    expect(run.json.status).toBe('completed');
    const extraKey = await call(h, 'POST', '/v1/api-keys', { key, body: { kind: 'secret', name: 'spare' } });
    pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [agent.json.id], allowed_origins: [ORIGIN] },
      })
    ).json.key;
    const invitation = await call(h, 'POST', '/v1/invitations', {
      key,
      body: { email: 'x@fuzz.test', role: 'viewer' },
    });
    // The operator routes get another tenant's id: a fuzzed PATCH may suspend it.
    const spare = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Spare' } });
    let deliveries = await call(h, 'GET', `/v1/webhook-deliveries?run_id=${run.json.id}`, { key });
    for (let i = 0; i < 50 && deliveries.json.data.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      deliveries = await call(h, 'GET', `/v1/webhook-deliveries?run_id=${run.json.id}`, { key });
    }
    const provider = await call(h, 'PUT', '/v1/model-providers/openai_compatible', {
      key,
      body: { api_key: 'fuzz-model-key', base_url: h.llm.openaiBaseUrl },
    });
    expect(provider.status).toBe(201);
    const session = await owner.request('GET', '/v1/auth/session');
    Object.assign(ids, {
      agent: agent.json.id,
      agent_version: '1',
      conversation: conversation.json.id,
      run: run.json.id,
      secret: secretName,
      api_key: extraKey.json.id,
      tenant: spare.json.id,
      member: session.json.user.id,
      invitation: invitation.json.id,
      webhook_delivery: deliveries.json.data[0]?.id ?? crypto.randomUUID(),
      model_provider: 'openai_compatible',
    });
  }, 120_000);
  afterAll(() => h?.close());

  /** Headers for an auth kind; a session request on logout signs in afresh, so the owner's session lives on. */
  async function headersFor(auth: Auth, op: SpecOperation): Promise<Record<string, string>> {
    switch (auth) {
      case 'key':
        return { authorization: `Bearer ${key}` };
      case 'publishable':
        return { authorization: `Bearer ${pk}`, origin: ORIGIN };
      case 'operator':
        return { authorization: `Bearer ${ADMIN_TOKEN}` };
      case 'session': {
        let browser = owner;
        if (op.path === '/v1/auth/logout') {
          browser = new Browser(h);
          await browser.login('owner@fuzz.test', PASSWORD);
        }
        return {
          cookie: `agentry_session=${browser.cookie}`,
          'x-csrf-token': browser.csrf ?? '',
          'x-agentry-tenant': tenantId,
        };
      }
      default:
        return {};
    }
  }

  /** Requests for one operation: a caller, path and query values (real ids or hostile), a body. */
  function requestArbitrary(op: SpecOperation): fc.Arbitrary<FuzzRequest> {
    const params: Array<Record<string, any>> = op.op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    const real = (p: Record<string, any>) => encodeURIComponent(ids[p['x-agentry-resource']] ?? 'x');
    const takesBody = !['GET', 'HEAD', 'DELETE'].includes(op.method) || op.op.requestBody !== undefined;
    return fc
      .record({
        auth: fc.constantFrom<Auth>('key', 'key', 'session', 'session', 'publishable', 'operator', 'none'),
        path: fc.tuple(
          ...pathParams.map((p) =>
            fc.oneof({ weight: 3, arbitrary: fc.constant(real(p)) }, { weight: 2, arbitrary: hostileSegment }),
          ),
        ),
        query: fc.tuple(...queryParams.map(() => fc.option(hostileSegment, { freq: 3 }))),
        body: takesBody
          ? bodyArbitrary(op, document)
          : fc.constant({ body: undefined as string | Uint8Array | undefined, mutation: 'none' }),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/json') },
          { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
        ),
        // Now and then: hostile values of the headers the API reads (they win over the caller's).
        headers: fc.oneof(
          { weight: 3, arbitrary: fc.constant({}) },
          {
            weight: 1,
            arbitrary: fc.record(
              {
                'idempotency-key': hostileHeader,
                'x-end-user-token': hostileHeader,
                'x-agentry-tenant': hostileHeader,
                'last-event-id': hostileHeader,
                'x-csrf-token': hostileHeader,
                prefer: fc.constantFrom('respond-async', 'wait=1', 'respond-async, wait=99999999999'),
                accept: fc.constantFrom('text/event-stream', 'application/json', '*/*'),
              },
              { requiredKeys: [] },
            ),
          },
        ),
      })
      .map(({ auth, path, query, body, contentType, headers }) => {
        let url = op.path;
        pathParams.forEach((p, i) => {
          url = url.replace(`{${p.name}}`, path[i]!);
        });
        const search = queryParams.flatMap((p, i) => (query[i] === null ? [] : [`${p.name}=${query[i]}`])).join('&');
        return {
          auth,
          path: search ? `${url}?${search}` : url,
          contentType: body.body === undefined ? undefined : contentType,
          headers: headers as Record<string, string>,
          ...body,
        };
      });
  }

  /** Sends a request; returns what is wrong with the answer, or undefined. */
  async function problemWith(op: SpecOperation, request: FuzzRequest): Promise<string | undefined> {
    const headers = { ...(await headersFor(request.auth, op)), ...request.headers };
    if (request.contentType) headers['content-type'] = request.contentType;
    const res = await send(op.method, `${h.platform.url}${request.path}`, headers, request.body);
    const { type, text } = res;
    if (res.status >= 500 && !(res.status === 503 && ENVIRONMENT_503.some((code) => text.includes(`"${code}"`))))
      return `${res.status}: ${text.slice(0, 300)}`;
    if (res.status < 400) return undefined;
    const openAi = op.path === '/v1/chat/completions' || op.path === '/v1/models';
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      return `${res.status} ${type} is not JSON: ${text.slice(0, 200)}`;
    }
    if (openAi) {
      if (!type.startsWith('application/json') || typeof json?.error?.code !== 'string')
        return `${res.status} ${type} is not an OpenAI error with a code: ${text.slice(0, 300)}`;
    } else if (!type.startsWith('application/problem+json') || typeof json?.code !== 'string' || !json.code) {
      return `${res.status} ${type} is not problem+json with a code: ${text.slice(0, 300)}`;
    }
    return undefined;
  }

  it('never answers 5xx, and every error is problem+json with a code (OpenAI routes: an OpenAI error)', async () => {
    const failures: string[] = [];
    // Deletions last, so the other operations keep meeting the fixtures a deletion may remove.
    const operations = operationsOf(document).sort(
      (x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'),
    );
    expect(operations.length).toBeGreaterThan(40);
    for (const op of operations) {
      const result = await fc.check(
        fc.asyncProperty(requestArbitrary(op), async (request) => {
          const problem = await problemWith(op, request);
          if (problem) throw new Error(problem);
        }),
        { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
      if (result.failed) {
        const request = result.counterexample?.[0] as FuzzRequest | undefined;
        const body =
          typeof request?.body === 'string' ? request.body.slice(0, 200) : request?.body ? '(bytes)' : '(none)';
        failures.push(
          `${op.method} ${op.path} (seed ${result.seed}): ${describeError(result.errorInstance)}\n  as ${request?.auth} ${request?.path} [${request?.contentType}] ${JSON.stringify(request?.headers)} ${request?.mutation}: ${body}`,
        );
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
