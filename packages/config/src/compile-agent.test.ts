import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import { loadAgentConfig } from './load-agent-config.ts';
import { buildSystemPrompt } from './system-prompt.ts';
import { mutated } from './test-support/base-config.ts';

const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../configs/${name}`, import.meta.url), 'utf8')) as unknown;

describe('compileAgent', () => {
  it('compiles once per hash and returns the cached agent afterwards', () => {
    const first = loadAgentConfig(example('order-status.json'));
    const second = loadAgentConfig(example('order-status.json'));
    expect(compileAgent(second.config, second.hash)).toBe(compileAgent(first.config, first.hash));
  });

  it('re-uploading the same config many times reuses everything', () => {
    const text = JSON.stringify(mutated(() => {}));
    const agents = new Set<unknown>();
    const configs = new Set<unknown>();
    for (let i = 0; i < 10_000; i++) {
      const { config, hash } = loadAgentConfig(JSON.parse(text));
      configs.add(config);
      agents.add(compileAgent(config, hash));
    }
    expect(configs.size).toBe(1);
    expect(agents.size).toBe(1);
  });

  it('applies defaults for model, limits and tool behaviour', () => {
    const { config, hash } = loadAgentConfig(mutated(() => {}));
    const agent = compileAgent(config, hash);
    expect(agent.model).toEqual({});
    expect(agent.limits).toEqual({
      maxSteps: 10,
      maxToolCalls: 50,
      maxTokens: 200_000,
      runTimeoutMs: 300_000,
      toolTimeoutMs: 30_000,
      maxQueuedRuns: 10,
    });
    expect(agent).toMatchObject({
      toolChoice: 'auto',
      parallelToolCalls: true,
      requireDoneTool: false,
      toolProtocol: 'native',
    });
    expect(agent.tools[0]).toMatchObject({
      name: 'save',
      kind: 'http',
      method: 'POST',
      timeoutMs: 30_000,
      retries: 0,
      approval: 'never',
    });
    expect(agent.toolDefinitions).toEqual([
      { name: 'save', description: 'Save a contact', parameters: config.tools[0]!.parameters },
    ]);
  });

  it('maps the configured model, limits and tool settings', () => {
    const { config, hash } = loadAgentConfig(example('order-status.json'));
    const agent = compileAgent(config, hash);
    expect(agent.model).toEqual({ provider: 'openai', name: 'gpt-4o-mini', temperature: 0.2 });
    expect(agent.limits).toMatchObject({ maxSteps: 6, maxToolCalls: 10, runTimeoutMs: 120_000, toolTimeoutMs: 15_000 });
    expect(agent.tools.map((t) => [t.name, t.timeoutMs, t.retries, t.response])).toEqual([
      ['get_order_status', 10_000, 2, { maxBytes: 4000, fields: ['status', 'expected_delivery', 'items'] }],
      ['list_recent_orders', 15_000, 1, { maxBytes: 8000, ephemeral: 2 }],
    ]);
    expect(agent.contextVariables.map((c) => c.name)).toEqual(['customerId', 'customerName']);
    expect(agent.widget?.title).toBe('Northwind support');
  });

  it('turns a named tool_choice into a tool choice object', () => {
    const { config, hash } = loadAgentConfig(mutated((c) => (c.tool_choice = 'save')));
    expect(compileAgent(config, hash).toolChoice).toEqual({ type: 'tool', name: 'save' });
  });

  it('validates arguments, fills defaults and reports issues with pointers', () => {
    const { config, hash } = loadAgentConfig(example('order-status.json'));
    const tool = compileAgent(config, hash).tools[0]!;
    expect(tool.validateArguments({ order_id: 'NW-1234' })).toEqual({
      ok: true,
      value: { order_id: 'NW-1234', include_items: false },
    });
    const bad = tool.validateArguments({ order_id: 'nope', include_items: 'yes' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issues.map((i) => [i.path, i.code])).toEqual([
        ['/order_id', 'invalid_format'],
        ['/include_items', 'wrong_type'],
      ]);
    }
    expect(tool.validateArguments('x')).toMatchObject({ ok: false });
  });

  it('renders the seed example exactly as the seed describes', () => {
    const { config, hash } = loadAgentConfig(example('seed-demo-booking.json'));
    const tool = compileAgent(config, hash).tools[0]!;
    const req = tool.render(
      { email: 'john@example.com' },
      { context: { dialogId: '12345', tenantId: '67890' }, secrets: {} },
    );
    expect(req).toEqual({
      method: 'POST',
      url: 'http://api.example.com/contacts/add',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'john@example.com', dialogId: '12345' }),
    });
  });
});

describe('buildSystemPrompt', () => {
  it('is deterministic', () => {
    const { config } = loadAgentConfig(example('order-status.json'));
    expect(buildSystemPrompt(config)).toBe(buildSystemPrompt(structuredClone(config)));
  });

  it.each([['seed-demo-booking.json'], ['order-status.json']])('matches the snapshot for %s', (name) => {
    const { config } = loadAgentConfig(example(name));
    expect(buildSystemPrompt(config)).toMatchSnapshot();
  });

  it('names only what is configured', () => {
    const { config } = loadAgentConfig({ basic_settings: { name: 'Ava' }, require_done_tool: true });
    expect(buildSystemPrompt(config)).toBe(
      'You are Ava.\n\n## Finishing\nWhen the task is complete, call the `done` tool.',
    );
  });
});

describe('memory', () => {
  it('uploading the same config 10,000 times leaves the heap flat', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const probe = new URL('./test-support/heap-probe.ts', import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', probe, '10000']);
    expect(Number(stdout)).toBeLessThan(2 * 1024 * 1024);
  });
});
