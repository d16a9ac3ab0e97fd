// Relative import: the workspace root does not depend on @agentry/config.
import { compileAgent, loadAgentConfig } from '../packages/config/src/index.ts';
import { sample } from './stats.ts';

/**
 * A realistic config with `count` tools. `salt` makes the content unique (hash, parameter schemas
 * and the interpolated templates), so no cache helps the "new content" figure.
 */
function configWithTools(count: number, salt: number): Record<string, unknown> {
  return {
    basic_settings: { name: `Bench ${salt}`, description: 'Benchmark agent', language: 'English', tone: 'Calm' },
    action_books: [{ condition: 'When asked', action: 'Use the tools', tools: ['tool_0', 'tool_1'] }],
    tools: Array.from({ length: count }, (_, i) => ({
      name: `tool_${i}`,
      description: `Tool number ${i}`,
      parameters: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{4,8}$', description: `Id (${salt})` },
          email: { type: 'string', format: 'email' },
          count: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
        },
        required: ['id'],
      },
      endpoint: {
        url: `https://api.example.com/v1/items/{{id}}/tool${i}?lang=en&v=${salt}`,
        method: 'POST',
        headers: { Authorization: 'Bearer {{secrets.TOKEN}}', 'X-Conversation': '{{context.conversationId}}' },
        query_params: { count: '{{count}}' },
        body: { email: '{email}', dialogId: 'todo_autofill_by_system', note: `v${salt} id={{id}} count={{count}}` },
      },
    })),
  };
}

/**
 * Config benchmarks: validate + compile of a 100-tool config (fresh content each time, so no cache
 * helps), the same upload repeated (cache hit), and rendering one request from a compiled tool.
 */
export async function run(): Promise<Array<{ name: string; unit: string; median: number; p99: number }>> {
  let salt = 0;
  const cold = await sample(
    () => {
      const { config, hash } = loadAgentConfig(configWithTools(100, ++salt));
      compileAgent(config, hash);
    },
    { iterations: 30, warmup: 3 },
  );
  const same = JSON.stringify(configWithTools(100, -1));
  const warm = await sample(
    () => {
      const { config, hash } = loadAgentConfig(JSON.parse(same));
      compileAgent(config, hash);
    },
    { iterations: 200 },
  );
  const { config, hash } = loadAgentConfig(configWithTools(100, -2));
  const tool = compileAgent(config, hash).tools[42]!;
  const ctx = { context: { conversationId: 'conv-1', tenantId: 't' }, secrets: { TOKEN: 'secret' } };
  const render = await sample(
    () => {
      const checked = tool.validateArguments({ id: 'AB-12345', email: 'a@b.co', count: 3 });
      if (checked.ok) tool.render(checked.value, ctx);
    },
    { iterations: 20_000 },
  );
  return [
    { name: 'validate + compile, 100 tools (new content)', unit: 'ms', median: cold.median, p99: cold.p99 },
    {
      name: 'validate + compile, 100 tools (same content re-uploaded)',
      unit: 'ms',
      median: warm.median,
      p99: warm.p99,
    },
    { name: 'validate arguments + render one request', unit: 'ms', median: render.median, p99: render.p99 },
  ];
}
