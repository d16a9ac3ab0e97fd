import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { baseConfig, mutated } from './test-support/base-config.ts';

const configsDir = new URL('../../../configs/', import.meta.url);
const examples: Array<[string, unknown]> = readdirSync(configsDir)
  .filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'))
  .map((f) => [f, JSON.parse(readFileSync(new URL(f, configsDir), 'utf8'))]);

const inline: Array<[string, unknown]> = [
  ['only basic_settings', { basic_settings: { name: 'Minimal' } }],
  ['the test base config', baseConfig()],
  [
    'approval tools waiting up to an hour',
    mutated((c) => {
      c.tools[0].approval = 'always';
      c.limits = { run_timeout: 60, waiting_timeout: 3600 };
    }),
  ],
  [
    'client tool without endpoint, approval always',
    {
      basic_settings: { name: 'Page helper' },
      tools: [{ name: 'open_cart', description: 'Open the cart drawer', type: 'client', approval: 'always' }],
    },
  ],
  [
    'GET with path, query and helpers',
    mutated((c) => {
      c.tools[0].endpoint = {
        url: 'https://api.example.com/users/{{lower email}}/orders?since={{default age "0"}}',
        method: 'GET',
        query_params: { tenant: '{{context.tenantId}}', page: 1, active: true },
        timeout: 5,
      };
      c.tools[0].retries = 3;
    }),
  ],
  [
    'cached GET and a cached search sent as an idempotent POST',
    mutated((c) => {
      c.tools.push({
        ...structuredClone(c.tools[0]),
        name: 'lookup',
        endpoint: { url: 'https://api.example.com/users/{{email}}', method: 'GET' },
        cache: { ttl: 300 },
      });
      c.tools[0].idempotent = true;
      c.tools[0].cache = { ttl: 60 };
    }),
  ],
  [
    'nested body with arrays and literals',
    mutated((c) => {
      c.tools[0].endpoint.body = {
        contact: { emails: ['{{email}}', 'backup@example.com'], age: '{{age}}' },
        flags: [1, true, null],
      };
    }),
  ],
  [
    'parameters with $defs, $ref, anyOf and formats',
    mutated((c) => {
      c.tools[0].parameters = {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email' },
          address: { $ref: '#/$defs/address' },
          when: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3, uniqueItems: true },
        },
        required: ['email'],
        additionalProperties: false,
        $defs: {
          address: { type: 'object', properties: { city: { type: 'string', pattern: '^[A-Z][a-z]+$' } } },
        },
      };
      c.tools[0].endpoint.body = { email: '{{email}}', address: '{{address}}' };
    }),
  ],
  [
    'every optional section',
    mutated((c) => {
      c.model = { provider: 'anthropic', name: 'claude-sonnet-4', temperature: 0.3, max_output_tokens: 2048 };
      c.limits = { max_steps: 8, max_tool_calls: 12, max_tokens: 50000, run_timeout: 90, tool_timeout: 5 };
      c.tool_choice = 'save';
      c.parallel_tool_calls = false;
      c.require_done_tool = true;
      c.tool_protocol = 'xml';
      c.context = [{ name: 'plan', type: 'string', required: true, visible_to_model: true, description: 'Plan' }];
      c.widget = {
        title: 'Help',
        greeting: 'Hi!',
        colors: { primary: '#123', background: '#ffffff', text: '#000000' },
        position: 'bottom-left',
        suggested_questions: ['Book a demo'],
        allowed_origins: ['https://www.example.com', 'https://*.example.org:8443'],
      };
      c.tools[0].response = { max_bytes: 2000, fields: ['id', 'contact.email'], ephemeral: 3 };
      c.tools[0].endpoint.body.plan = '{{context.plan}}';
    }),
  ],
  [
    'seed syntax mixed with handlebars',
    mutated((c) => {
      c.tools[0].endpoint.body = {
        email: '{email}',
        note: 'age {{age}} via {email}',
        dialogId: 'todo_autofill_by_system',
      };
    }),
  ],
  [
    'PUT with retries and header secret',
    mutated((c) => {
      c.tools[0].endpoint.method = 'PUT';
      c.tools[0].retries = 2;
      c.tools[0].endpoint.headers = { Authorization: 'Bearer {{secrets.CRM_TOKEN}}', 'X-Agent': '{{context.agentId}}' };
    }),
  ],
  [
    'tool without parameters',
    {
      basic_settings: { name: 'Clock' },
      tools: [{ name: 'now', description: 'Current time', endpoint: { url: 'https://time.example.com/now' } }],
    },
  ],
];

describe('valid agent configs', () => {
  const all = [...examples, ...inline];

  it('has at least 10 valid configs, the configs/ examples among them', () => {
    expect(examples.map(([name]) => name)).toEqual(
      expect.arrayContaining(['seed-demo-booking.json', 'order-status.json']),
    );
    expect(all.length).toBeGreaterThanOrEqual(10);
  });

  it.each(all)('%s loads', (_name, input) => {
    const result = checkAgentConfig(input);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it('hashes canonical JSON: key order does not matter, content does', () => {
    const a = loadAgentConfig({ basic_settings: { name: 'A', tone: 'calm' } });
    const b = loadAgentConfig({ basic_settings: { tone: 'calm', name: 'A' } });
    const c = loadAgentConfig({ basic_settings: { tone: 'calm', name: 'B' } });
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
  });

  it('returns action_books and tools even when left out, and a frozen config', () => {
    const { config } = loadAgentConfig({ basic_settings: { name: 'A' } });
    expect(config.action_books).toEqual([]);
    expect(config.tools).toEqual([]);
    expect(Object.isFrozen(config.basic_settings)).toBe(true);
  });

  it('loads the seed example unchanged', () => {
    const seed = examples.find(([name]) => name === 'seed-demo-booking.json')?.[1];
    const { config } = loadAgentConfig(seed);
    expect(config).toEqual(seed);
  });
});

describe('loading under a cache key', () => {
  it('checks a document once per key and still refuses an invalid one', () => {
    const key = `version-${Math.random()}`;
    const first = loadAgentConfig(baseConfig(), { cacheKey: key });
    // The caller promises the document under a key never changes: the second load is the first's.
    expect(loadAgentConfig(baseConfig(), { cacheKey: key })).toBe(first);
    expect(first.hash).toBe(loadAgentConfig(baseConfig()).hash);
    expect(() => loadAgentConfig({ basic_settings: {} }, { cacheKey: `${key}-bad` })).toThrow(/problem/);
    expect(() => loadAgentConfig({ basic_settings: {} }, { cacheKey: `${key}-bad` })).toThrow(/problem/);
  });
});
