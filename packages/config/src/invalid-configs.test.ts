import { AppError } from '@agentry/errors';
import { describe, expect, it } from 'vitest';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { type Loose, mutated } from './test-support/base-config.ts';

type Case = [name: string, input: unknown, path: string, code: string];

const tool = (change: (t: Loose) => void) => mutated((c) => change(c.tools[0]));
const endpoint = (change: (e: Loose) => void) => mutated((c) => change(c.tools[0].endpoint));
const body = (value: unknown) => endpoint((e) => (e.body = { value }));
const prop = (schema: Record<string, unknown>) => tool((t) => (t.parameters.properties.x = schema));

// Each case: the exact JSON pointer and stable code the loader must report.
const cases: Case[] = [
  ['not an object', [], '', 'wrong_type'],
  ['missing basic_settings', mutated((c) => delete c.basic_settings), '/basic_settings', 'missing_key'],
  ['missing name', mutated((c) => delete c.basic_settings.name), '/basic_settings/name', 'missing_key'],
  ['empty name', mutated((c) => (c.basic_settings.name = '')), '/basic_settings/name', 'empty_value'],
  ['misspelt top-level key', mutated((c) => (c.tols = [])), '/tols', 'unknown_key'],
  ['language not a string', mutated((c) => (c.basic_settings.language = 3)), '/basic_settings/language', 'wrong_type'],
  ['action_books not a list', mutated((c) => (c.action_books = {})), '/action_books', 'wrong_type'],
  [
    'action book without condition',
    mutated((c) => delete c.action_books[0].condition),
    '/action_books/0/condition',
    'missing_key',
  ],
  [
    'action book names missing tool',
    mutated((c) => (c.action_books[0].tools = ['save_customer'])),
    '/action_books/0/tools/0',
    'unknown_tool',
  ],
  [
    'action book names a tool twice',
    mutated((c) => (c.action_books[0].tools = ['save', 'save'])),
    '/action_books/0/tools',
    'duplicate_value',
  ],
  ['tool without name', tool((t) => delete t.name), '/tools/0/name', 'missing_key'],
  ['tool name with spaces', tool((t) => (t.name = 'save contact')), '/tools/0/name', 'invalid_format'],
  [
    'duplicate tool names',
    mutated((c) => c.tools.push(structuredClone(c.tools[0]))),
    '/tools/1/name',
    'duplicate_tool_name',
  ],
  ['misspelt endpoint', tool((t) => (t.endpont = t.endpoint)), '/tools/0/endpont', 'unknown_key'],
  ['http tool without endpoint', tool((t) => delete t.endpoint), '/tools/0/endpoint', 'missing_key'],
  ['lower-case method', endpoint((e) => (e.method = 'post')), '/tools/0/endpoint/method', 'invalid_value'],
  ['endpoint without url', endpoint((e) => delete e.url), '/tools/0/endpoint/url', 'missing_key'],
  ['ftp url', endpoint((e) => (e.url = 'ftp://files.example.com/x')), '/tools/0/endpoint/url', 'invalid_url'],
  [
    'placeholder in host',
    endpoint((e) => (e.url = 'https://{{email}}.x.com/a')),
    '/tools/0/endpoint/url',
    'placeholder_in_host',
  ],
  [
    'whole url is a placeholder',
    endpoint((e) => (e.url = '{{email}}')),
    '/tools/0/endpoint/url',
    'placeholder_in_host',
  ],
  [
    'placeholder in port',
    endpoint((e) => (e.url = 'https://x.com:{{age}}/a')),
    '/tools/0/endpoint/url',
    'placeholder_in_host',
  ],
  [
    'placeholder glued to host',
    endpoint((e) => (e.url = 'https://x.com{{email}}')),
    '/tools/0/endpoint/url',
    'placeholder_in_host',
  ],
  ['url with fragment', endpoint((e) => (e.url = 'https://x.com/a#b')), '/tools/0/endpoint/url', 'invalid_url'],
  [
    'misspelt placeholder',
    endpoint((e) => (e.body.email = '{{emial}}')),
    '/tools/0/endpoint/body/email',
    'unknown_placeholder',
  ],
  [
    'misspelt seed placeholder',
    endpoint((e) => (e.body.email = '{emial}')),
    '/tools/0/endpoint/body/email',
    'unknown_placeholder',
  ],
  [
    'unknown context variable',
    body('{{context.sessionKey}}'),
    '/tools/0/endpoint/body/value',
    'unknown_context_variable',
  ],
  [
    'autofill of unknown key',
    endpoint((e) => (e.body.sessionKey = 'todo_autofill_by_system')),
    '/tools/0/endpoint/body/sessionKey',
    'unknown_context_variable',
  ],
  ['block helper', body('{{#if email}}x{{/if}}'), '/tools/0/endpoint/body/value', 'template_not_allowed'],
  ['partial', body('{{> header}}'), '/tools/0/endpoint/body/value', 'template_not_allowed'],
  ['triple-stash in a body', body('x {{{email}}} y'), '/tools/0/endpoint/body/value', 'template_triple_stash'],
  ['whole-value triple-stash', body('{{{email}}}'), '/tools/0/endpoint/body/value', 'template_triple_stash'],
  ['ampersand unescaped', body('{{& email}}'), '/tools/0/endpoint/body/value', 'template_triple_stash'],
  [
    'triple-stash in a header',
    endpoint((e) => (e.headers['X-Api-Key'] = '{{{secrets.CRM_TOKEN}}}')),
    '/tools/0/endpoint/headers/X-Api-Key',
    'template_triple_stash',
  ],
  [
    'triple-stash in the url',
    endpoint((e) => (e.url = 'https://api.example.com/orders/{{{email}}}')),
    '/tools/0/endpoint/url',
    'template_triple_stash',
  ],
  ['unknown helper', body('{{json email}}'), '/tools/0/endpoint/body/value', 'template_unknown_helper'],
  ['lookup helper', body('{{lookup this "constructor"}}'), '/tools/0/endpoint/body/value', 'template_unknown_helper'],
  ['constructor lookup', body('{{constructor}}'), '/tools/0/endpoint/body/value', 'template_forbidden_reference'],
  ['__proto__ lookup', body('{{email.__proto__}}'), '/tools/0/endpoint/body/value', 'template_forbidden_reference'],
  ['@root data variable', body('{{@root.email}}'), '/tools/0/endpoint/body/value', 'template_forbidden_reference'],
  ['parent scope', body('{{../email}}'), '/tools/0/endpoint/body/value', 'template_forbidden_reference'],
  ['nested argument path', body('{{email.domain}}'), '/tools/0/endpoint/body/value', 'template_bad_reference'],
  ['unclosed placeholder', body('{{email'), '/tools/0/endpoint/body/value', 'template_syntax'],
  [
    'invalid secret name',
    endpoint((e) => (e.headers['X-Api-Key'] = '{{secrets.crm-token}}')),
    '/tools/0/endpoint/headers/X-Api-Key',
    'invalid_secret_name',
  ],
  ['GET with a body', endpoint((e) => (e.method = 'GET')), '/tools/0/endpoint/body', 'body_not_allowed'],
  [
    'header value with line break',
    endpoint((e) => (e.headers['X-A'] = 'a\r\nX-Evil: 1')),
    '/tools/0/endpoint/headers/X-A',
    'invalid_header_value',
  ],
  [
    'Host override',
    endpoint((e) => (e.headers.Host = 'metadata.internal')),
    '/tools/0/endpoint/headers/Host',
    'header_not_allowed',
  ],
  [
    'hop-by-hop header',
    endpoint((e) => (e.headers['Transfer-Encoding'] = 'chunked')),
    '/tools/0/endpoint/headers/Transfer-Encoding',
    'header_not_allowed',
  ],
  [
    'invalid header name',
    endpoint((e) => (e.headers['Bad Header'] = 'x')),
    '/tools/0/endpoint/headers/Bad Header',
    'invalid_name',
  ],
  [
    'query_params value is an object',
    endpoint((e) => (e.query_params = { q: { a: 1 } })),
    '/tools/0/endpoint/query_params/q',
    'wrong_type',
  ],
  ['timeout of zero', endpoint((e) => (e.timeout = 0)), '/tools/0/endpoint/timeout', 'out_of_range'],
  [
    'parameters not an object schema',
    tool((t) => (t.parameters.type = 'array')),
    '/tools/0/parameters/type',
    'invalid_value',
  ],
  [
    'unsupported keyword',
    prop({ type: 'string', patern: 'x' }),
    '/tools/0/parameters/properties/x/patern',
    'unknown_key',
  ],
  [
    '$data keyword',
    prop({ type: 'string', maxLength: { $data: '1/a' } }),
    '/tools/0/parameters/properties/x/maxLength',
    'wrong_type',
  ],
  [
    'remote $ref',
    prop({ $ref: 'https://evil.example/schema.json' }),
    '/tools/0/parameters/properties/x/$ref',
    'invalid_format',
  ],
  [
    '$ref to a missing definition',
    prop({ $ref: '#/$defs/address' }),
    '/tools/0/parameters/properties/x/$ref',
    'unknown_ref',
  ],
  [
    'look-ahead pattern',
    prop({ type: 'string', pattern: '^(?=a)b' }),
    '/tools/0/parameters/properties/x/pattern',
    'unsupported_pattern',
  ],
  [
    'back-reference pattern',
    prop({ type: 'string', pattern: '(a)\\1' }),
    '/tools/0/parameters/properties/x/pattern',
    'unsupported_pattern',
  ],
  [
    'unknown format',
    prop({ type: 'string', format: 'credit-card' }),
    '/tools/0/parameters/properties/x/format',
    'invalid_value',
  ],
  ['unknown JSON type', prop({ type: 'text' }), '/tools/0/parameters/properties/x/type', 'invalid_value'],
  [
    'parameter named context',
    tool((t) => (t.parameters.properties.context = { type: 'string' })),
    '/tools/0/parameters/properties/context',
    'invalid_name',
  ],
  [
    'parameter named secrets',
    tool((t) => (t.parameters.properties.secrets = { type: 'string' })),
    '/tools/0/parameters/properties/secrets',
    'invalid_name',
  ],
  [
    'required names a missing property',
    tool((t) => (t.parameters.required = ['emial'])),
    '/tools/0/parameters/required/0',
    'unknown_required',
  ],
  ['retries on POST', tool((t) => (t.retries = 2)), '/tools/0/retries', 'retries_not_idempotent'],
  [
    'too many retries',
    tool((t) => {
      t.retries = 9;
      t.endpoint.method = 'PUT';
    }),
    '/tools/0/retries',
    'out_of_range',
  ],
  ['client tool with endpoint', tool((t) => (t.type = 'client')), '/tools/0/endpoint', 'endpoint_not_allowed'],
  ['cache on POST', tool((t) => (t.cache = { ttl: 60 })), '/tools/0/cache', 'cache_not_idempotent'],
  [
    'cache on PUT',
    tool((t) => {
      t.cache = { ttl: 60 };
      t.endpoint.method = 'PUT';
    }),
    '/tools/0/cache',
    'cache_not_idempotent',
  ],
  [
    'cache ttl zero',
    tool((t) => {
      t.cache = { ttl: 0 };
      t.idempotent = true;
    }),
    '/tools/0/cache/ttl',
    'out_of_range',
  ],
  [
    'cache on a client tool',
    tool((t) => {
      t.type = 'client';
      delete t.endpoint;
      t.cache = { ttl: 60 };
    }),
    '/tools/0/cache',
    'cache_not_allowed',
  ],
  ['unknown approval mode', tool((t) => (t.approval = 'sometimes')), '/tools/0/approval', 'invalid_value'],
  [
    'response field path with spaces',
    tool((t) => (t.response = { fields: ['order status'] })),
    '/tools/0/response/fields/0',
    'invalid_format',
  ],
  ['ephemeral zero', tool((t) => (t.response = { ephemeral: 0 })), '/tools/0/response/ephemeral', 'out_of_range'],
  ['tool_choice names no tool', mutated((c) => (c.tool_choice = 'sav')), '/tool_choice', 'unknown_tool'],
  ['unknown tool protocol', mutated((c) => (c.tool_protocol = 'yaml')), '/tool_protocol', 'invalid_value'],
  ['unknown model provider', mutated((c) => (c.model = { provider: 'gemini' })), '/model/provider', 'invalid_value'],
  ['temperature too high', mutated((c) => (c.model = { temperature: 3 })), '/model/temperature', 'out_of_range'],
  ['max_steps zero', mutated((c) => (c.limits = { max_steps: 0 })), '/limits/max_steps', 'out_of_range'],
  [
    'max_tool_calls not an integer',
    mutated((c) => (c.limits = { max_tool_calls: 1.5 })),
    '/limits/max_tool_calls',
    'wrong_type',
  ],
  [
    'waiting_timeout zero',
    mutated((c) => (c.limits = { waiting_timeout: 0 })),
    '/limits/waiting_timeout',
    'out_of_range',
  ],
  [
    'waiting_timeout over a year',
    mutated((c) => (c.limits = { waiting_timeout: 31_536_001 })),
    '/limits/waiting_timeout',
    'out_of_range',
  ],
  [
    'waiting_timeout not a whole number',
    mutated((c) => (c.limits = { waiting_timeout: 90.5 })),
    '/limits/waiting_timeout',
    'wrong_type',
  ],
  [
    'max_queued_runs zero',
    mutated((c) => (c.limits = { max_queued_runs: 0 })),
    '/limits/max_queued_runs',
    'out_of_range',
  ],
  [
    'max_queued_runs not a whole number',
    mutated((c) => (c.limits = { max_queued_runs: 2.5 })),
    '/limits/max_queued_runs',
    'wrong_type',
  ],
  [
    'context variable with a system name',
    mutated((c) => (c.context = [{ name: 'tenantId' }])),
    '/context/0/name',
    'reserved_context_variable',
  ],
  [
    'context variable declared twice',
    mutated((c) => (c.context = [{ name: 'plan' }, { name: 'plan' }])),
    '/context/1/name',
    'duplicate_context_variable',
  ],
  [
    'context variable with a dash',
    mutated((c) => (c.context = [{ name: 'user-plan' }])),
    '/context/0/name',
    'invalid_format',
  ],
  [
    'widget colour not hex',
    mutated((c) => (c.widget = { colors: { primary: 'blue' } })),
    '/widget/colors/primary',
    'invalid_format',
  ],
  [
    'widget origin with a path',
    mutated((c) => (c.widget = { allowed_origins: ['https://a.com/x'] })),
    '/widget/allowed_origins/0',
    'invalid_format',
  ],
  ['widget position', mutated((c) => (c.widget = { position: 'top' })), '/widget/position', 'invalid_value'],
  [
    'too many tools',
    mutated((c) => (c.tools = Array.from({ length: 129 }, (_, i) => ({ ...c.tools[0], name: `t${i}` })))),
    '/tools',
    'too_many',
  ],
  ['nested too deep', mutated((c) => (c.tools[0].endpoint.body = deep(30))), '', 'config_too_deep'],
  ['nested 10,000 levels deep', mutated((c) => (c.tools[0].endpoint.body = deep(10_000))), '', 'config_too_deep'],
  [
    'lone surrogate in a string',
    mutated((c) => (c.basic_settings.name = 'A \ud800')),
    '/basic_settings/name',
    'lone_surrogate',
  ],
  [
    'lone surrogate in a key',
    mutated((c) => (c.tools[0].endpoint.body = { '\udc00': 'x' })),
    '/tools/0/endpoint/body/\ufffd',
    'lone_surrogate',
  ],
  [
    'number overflowing to Infinity',
    mutated((c) => (c.limits = { run_timeout: JSON.parse('1e400') })),
    '/limits/run_timeout',
    'non_finite_number',
  ],
  ['document too large', mutated((c) => (c.basic_settings.background = 'x'.repeat(1_100_000))), '', 'config_too_large'],
];

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
}

describe('invalid agent configs', () => {
  it('has a corpus of at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', (_name, input, path, code) => {
    const result = checkAgentConfig(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => ({ path: i.path, code: i.code }))).toContainEqual({ path, code });
    for (const issue of result.issues) expect(issue.message.length).toBeGreaterThan(0);
  });

  it('throws one 422 validation_failed error listing every problem', () => {
    const input = mutated((c) => {
      c.tools[0].endpont = {};
      c.action_books[0].tools = ['save_customer'];
      c.basic_settings.name = '';
    });
    let caught: unknown;
    try {
      loadAgentConfig(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(422);
    expect(error.issues?.map((i) => i.code).sort()).toEqual(['empty_value', 'unknown_key', 'unknown_tool']);
  });

  it('gives hints a non-developer can act on', () => {
    const result = checkAgentConfig(
      mutated((c) => {
        c.tools[0].endpont = {};
        c.action_books[0].tools = ['save_customer'];
        c.tools[0].endpoint.body.email = '{{emial}}';
      }),
    );
    if (result.ok) throw new Error('expected issues');
    const byCode = Object.fromEntries(result.issues.map((i) => [i.code, i]));
    expect(byCode.unknown_key).toMatchObject({
      message: 'tools[0] has an unknown key `endpont`',
      hint: 'did you mean `endpoint`?',
    });
    expect(byCode.unknown_tool?.message).toBe('action book 1 names tool `save_customer` which does not exist');
    expect(byCode.unknown_placeholder).toMatchObject({
      message: 'placeholder `{{emial}}` in tools[0].endpoint.body.email is not a parameter of this tool',
      hint: 'did you mean `email`?',
    });
  });
});

describe('triple-stash', () => {
  it('says how to write the placeholder instead', () => {
    const result = checkAgentConfig(body('Hi {{{email}}}'));
    if (result.ok) throw new Error('expected issues');
    expect(result.issues).toEqual([
      expect.objectContaining({
        path: '/tools/0/endpoint/body/value',
        code: 'template_triple_stash',
        message: expect.stringContaining('`{{{email}}}`'),
        hint: expect.stringMatching(/^write \{\{email\}\}: values are never HTML-escaped/),
      }),
    ]);
  });
});

describe('one pass', () => {
  it('still checks templates when unrelated keys of the same tool are wrong', () => {
    const result = checkAgentConfig(
      mutated((c) => {
        c.tools[0].endpoint.method = 'post';
        c.tools[0].endpoint.url = 'https://{{email}}.example.com/x';
        c.tools[0].endpoint.body.email = '{{emial}}';
        c.tools[0].approval = 'maybe';
      }),
    );
    if (result.ok) throw new Error('expected issues');
    expect(result.issues.map((i) => [i.path, i.code])).toEqual([
      ['/tools/0/approval', 'invalid_value'],
      ['/tools/0/endpoint/body/email', 'unknown_placeholder'],
      ['/tools/0/endpoint/method', 'invalid_value'],
      ['/tools/0/endpoint/url', 'placeholder_in_host'],
    ]);
  });
});
