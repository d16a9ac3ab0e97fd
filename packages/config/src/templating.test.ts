import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import type { ToolContext } from './compiled-agent.ts';
import { loadAgentConfig } from './load-agent-config.ts';

const ctx: ToolContext = {
  context: { tenantId: 't1', agentId: 'a1', conversationId: 'conv-9', plan: 'gold' },
  secrets: { CRM_TOKEN: 's3cr3t' },
};

/** Compiles a one-tool agent whose endpoint is `endpoint` and renders a call with `args`. */
function render(endpoint: Record<string, unknown>, args: Record<string, unknown>, context: ToolContext = ctx) {
  const { config, hash } = loadAgentConfig({
    basic_settings: { name: 'T' },
    context: [{ name: 'plan' }],
    tools: [
      {
        name: 't',
        description: 'd',
        parameters: {
          type: 'object',
          properties: {
            email: { type: 'string' },
            name: { type: 'string' },
            id: { type: 'string' },
            count: { type: 'integer' },
            ok: { type: 'boolean' },
            tags: { type: 'array', items: { type: 'string' } },
            address: { type: 'object' },
          },
        },
        endpoint,
      },
    ],
  });
  const tool = compileAgent(config, hash).tools[0]!;
  const checked = tool.validateArguments(args);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  return tool.render(checked.value, context);
}

const post = (body: Record<string, unknown>) => ({ url: 'https://api.example.com/x', method: 'POST', body });
const bodyOf = (endpoint: Record<string, unknown>, args: Record<string, unknown>) =>
  JSON.parse(render(endpoint, args).body ?? 'null');

describe('templating: values', () => {
  it.each([
    [
      'seed {email} is the argument',
      { email: '{email}' },
      { email: 'john@example.com' },
      { email: 'john@example.com' },
    ],
    ['{{email}} is the argument', { email: '{{email}}' }, { email: 'a@b.c' }, { email: 'a@b.c' }],
    ['whole integer keeps its type', { n: '{{count}}' }, { count: 3 }, { n: 3 }],
    ['whole boolean keeps its type', { b: '{ok}' }, { ok: false }, { b: false }],
    ['whole array keeps its type', { t: '{{tags}}' }, { tags: ['a', 'b'] }, { t: ['a', 'b'] }],
    ['whole object keeps its type', { a: '{{address}}' }, { address: { city: 'Oslo' } }, { a: { city: 'Oslo' } }],
    ['interpolated number becomes text', { s: 'n={{count}}' }, { count: 3 }, { s: 'n=3' }],
    ['interpolated object becomes JSON text', { s: 'a={{address}}' }, { address: { c: 1 } }, { s: 'a={"c":1}' }],
    [
      'optional argument left out drops its key',
      { email: '{{email}}', name: '{name}' },
      { email: 'x' },
      { email: 'x' },
    ],
    ['left-out argument inside text is empty', { s: 'Hi {{name}}!' }, {}, { s: 'Hi !' }],
    [
      'autofill marker fills dialogId from conversationId',
      { dialogId: 'todo_autofill_by_system' },
      {},
      { dialogId: 'conv-9' },
    ],
    ['autofill marker fills any system variable', { tenantId: 'todo_autofill_by_system' }, {}, { tenantId: 't1' }],
    ['context placeholder', { c: '{{context.dialogId}}', p: '{{context.plan}}' }, {}, { c: 'conv-9', p: 'gold' }],
    ['secret placeholder', { k: 'Bearer {{secrets.CRM_TOKEN}}' }, {}, { k: 'Bearer s3cr3t' }],
    [
      'helpers',
      { l: '{{lower email}}', u: '{{upper name}}', d: '{{default name "friend"}}' },
      { email: 'A@B.C' },
      { l: 'a@b.c', u: '', d: 'friend' },
    ],
    ['nested objects and arrays', { c: { e: ['{{email}}', 'x'] } }, { email: 'e' }, { c: { e: ['e', 'x'] } }],
    [
      'a __proto__ key stays an ordinary key',
      JSON.parse('{"__proto__": "{{email}}"}'),
      { email: 'e' },
      JSON.parse('{"__proto__":"e"}'),
    ],
  ])('%s', (_name, body, args, expected) => {
    expect(bodyOf(post(body), args)).toEqual(expected);
  });
});

describe('templating: injection attempts stay inert', () => {
  it('a body argument that closes the JSON string stays one string value', () => {
    const body = bodyOf(post({ name: '{{name}}', role: 'user' }), { name: 'a","role":"admin' });
    expect(body).toEqual({ name: 'a","role":"admin', role: 'user' });
  });

  it.each([
    ['{{secrets.CRM_TOKEN}}'],
    ['{secrets.CRM_TOKEN}'],
    ['{email}'],
    ['{{context.tenantId}}'],
    ['{{#each this}}x{{/each}}'],
  ])('an argument containing %s is sent literally (one pass, never re-parsed)', (value) => {
    expect(bodyOf(post({ name: '{{name}}', s: 'x {{name}}' }), { name: value })).toEqual({
      name: value,
      s: `x ${value}`,
    });
  });

  it('an argument can never fill or override a context variable or secret', () => {
    const body = bodyOf(post({ c: '{{context.tenantId}}', s: '{{secrets.CRM_TOKEN}}' }), {
      context: { tenantId: 'evil' },
      secrets: { CRM_TOKEN: 'evil' },
    } as Record<string, unknown>);
    expect(body).toEqual({ c: 't1', s: 's3cr3t' });
  });

  it('a path argument becomes one encoded segment and cannot climb out of the path', () => {
    const req = render({ url: 'https://api.example.com/v1/orders/{{id}}' }, { id: '../../admin?x=' });
    expect(req.url).toBe('https://api.example.com/v1/orders/..%2F..%2Fadmin%3Fx%3D');
    expect(new URL(req.url).pathname).toBe('/v1/orders/..%2F..%2Fadmin%3Fx%3D');
  });

  it.each([['..'], ['.'], ['%2e%2e']])('a path argument of %s cannot become a dot segment', (id) => {
    const attempt = () => render({ url: 'https://api.example.com/v1/orders/{{id}}' }, { id });
    if (id === '%2e%2e') {
      // Percent signs are encoded themselves, so this is the harmless literal segment %252e%252e.
      expect(attempt().url).toBe('https://api.example.com/v1/orders/%252e%252e');
    } else {
      expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_arguments' }));
    }
  });

  it('query placeholders in the URL are percent-encoded', () => {
    const req = render({ url: 'https://api.example.com/s?q={{name}}&n={{count}}' }, { name: 'a&b=c #d', count: 2 });
    expect(req.url).toBe('https://api.example.com/s?q=a%26b%3Dc%20%23d&n=2');
    expect(new URL(req.url).searchParams.get('q')).toBe('a&b=c #d');
  });

  it('query_params are form-encoded, arrays repeat and left-out ones drop', () => {
    const req = render(
      { url: 'https://api.example.com/s', query_params: { q: '{{name}}', tag: '{{tags}}', e: '{{email}}', lit: 1 } },
      { name: 'x&y', tags: ['a', 'b'] },
    );
    expect(req.url).toBe('https://api.example.com/s?q=x%26y&tag=a&tag=b&lit=1');
  });

  it('headers cannot receive CR/LF from an argument', () => {
    const attempt = () =>
      render({ url: 'https://api.example.com/x', headers: { 'X-Name': '{{name}}' } }, { name: 'a\r\nX-Admin: 1' });
    expect(attempt).toThrow(expect.objectContaining({ code: 'invalid_arguments' }));
  });

  it('header values are interpolated and left-out whole values drop the header', () => {
    const req = render(
      {
        url: 'https://api.example.com/x',
        headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}', 'X-Name': '{{name}}' },
      },
      {},
    );
    expect(req.headers).toEqual({ Authorization: 'Bearer s3cr3t' });
  });

  it('no HTML escaping anywhere', () => {
    expect(bodyOf(post({ s: '{{name}}' }), { name: '<b>&"\'' })).toEqual({ s: '<b>&"\'' });
  });

  it('a missing secret is a clear error, not an empty value', () => {
    const attempt = () => render(post({ s: '{{secrets.CRM_TOKEN}}' }), {}, { context: {}, secrets: {} });
    expect(attempt).toThrow(expect.objectContaining({ code: 'missing_secret' }));
  });

  it('adds content-type application/json for bodies unless set', () => {
    expect(render(post({ a: 1 }), {}).headers).toEqual({ 'content-type': 'application/json' });
    expect(render({ ...post({ a: 1 }), headers: { 'Content-Type': 'application/vnd.x+json' } }, {}).headers).toEqual({
      'Content-Type': 'application/vnd.x+json',
    });
  });

  it('prototype properties are not reachable through arguments', () => {
    const body = bodyOf(post({ s: 'x{{name}}' }), Object.assign(Object.create({ name: 'inherited' }), {}));
    expect(body).toEqual({ s: 'x' });
  });
});
