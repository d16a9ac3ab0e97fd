import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { type Loose, mutated } from './test-support/base-config.ts';

const server = (extra: Loose = {}) => ({ name: 'crm', url: 'https://mcp.example.com/mcp', ...extra });
const skill = (extra: Loose = {}): Loose => ({
  name: 'research',
  description: 'Looks things up',
  basic_settings: { name: 'Researcher' },
  tools: [
    {
      name: 'lookup',
      description: 'Find an order',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      endpoint: { url: 'https://api.example.com/orders/{{id}}', headers: { 'X-Key': '{{secrets.ORDERS_KEY}}' } },
    },
  ],
  ...extra,
});
const withServers = (...servers: Loose[]) => mutated((c) => (c.mcp_servers = servers));
const withSkills = (...skills: Loose[]) => mutated((c) => (c.skills = skills));

const valid: Array<[string, Loose]> = [
  ['a Streamable HTTP server', withServers(server())],
  [
    'every server option',
    withServers(
      server({
        transport: 'http',
        headers: { Authorization: 'Bearer {{secrets.CRM_MCP}}' },
        timeout: 5,
        enabled: false,
        tools: ['search', 'get_ticket'],
      }),
      { name: 'legacy-desk', transport: 'sse', url: 'http://desk.example.com/sse?key={{secrets.DESK}}' },
    ),
  ],
  [
    'action books and tool_choice naming MCP tools and skills',
    mutated((c) => {
      c.mcp_servers = [server({ tools: ['search'] })];
      c.skills = [skill()];
      c.action_books[0].tools = ['save', 'crm__search', 'skill__research'];
      c.tool_choice = 'skill__research';
    }),
  ],
  [
    'a skill with action books, limits and the parent context',
    mutated((c) => {
      c.context = [{ name: 'plan' }];
      const s = skill({
        action_books: [{ condition: 'Always', action: 'Look up first', tools: ['lookup'] }],
        limits: { max_steps: 3, max_tool_calls: 4 },
      });
      s.tools[0].endpoint.query_params = { plan: '{{context.plan}}' };
      c.skills = [s];
    }),
  ],
];

type Case = [name: string, input: Loose, path: string, code: string];
const invalid: Case[] = [
  ['stdio server', withServers({ name: 'gh', transport: 'stdio' }), '/mcp_servers/0/transport', 'stdio_not_allowed'],
  [
    'seed-style stdio server with a command',
    withServers({ name: 'gh', transport: 'stdio', command: 'npx' }),
    '/mcp_servers/0/command',
    'unknown_key',
  ],
  ['server without url', withServers({ name: 'crm' }), '/mcp_servers/0/url', 'missing_key'],
  ['server name with __', withServers(server({ name: 'my__crm' })), '/mcp_servers/0/name', 'invalid_format'],
  ['server name too long', withServers(server({ name: 'a'.repeat(33) })), '/mcp_servers/0/name', 'too_long'],
  ['duplicate server names', withServers(server(), server()), '/mcp_servers/1/name', 'duplicate_mcp_server'],
  ['server named skill', withServers(server({ name: 'skill' })), '/mcp_servers/0/name', 'reserved_name'],
  ['unknown transport', withServers(server({ transport: 'websocket' })), '/mcp_servers/0/transport', 'invalid_value'],
  ['ftp url', withServers(server({ url: 'ftp://mcp.example.com' })), '/mcp_servers/0/url', 'invalid_url'],
  [
    'placeholder in the host',
    withServers(server({ url: 'https://{{secrets.HOST}}/mcp' })),
    '/mcp_servers/0/url',
    'placeholder_in_host',
  ],
  [
    'context placeholder in a header',
    withServers(server({ headers: { 'X-User': '{{context.userId}}' } })),
    '/mcp_servers/0/headers/X-User',
    'unknown_context_variable',
  ],
  [
    'argument placeholder in the url',
    withServers(server({ url: 'https://mcp.example.com/{{tenant}}' })),
    '/mcp_servers/0/url',
    'unknown_placeholder',
  ],
  ['timeout too long', withServers(server({ timeout: 600 })), '/mcp_servers/0/timeout', 'out_of_range'],
  [
    'HTTP tool inside a server name space',
    mutated((c) => {
      c.mcp_servers = [server()];
      c.tools[0].name = 'crm__search';
      c.action_books[0].tools = [];
    }),
    '/tools/0/name',
    'tool_name_collision',
  ],
  [
    'HTTP tool named like a skill',
    mutated((c) => {
      c.tools[0].name = 'skill__x';
      c.action_books[0].tools = [];
    }),
    '/tools/0/name',
    'tool_name_collision',
  ],
  [
    'action book names an MCP tool outside the allow-list',
    mutated((c) => {
      c.mcp_servers = [server({ tools: ['search'] })];
      c.action_books[0].tools = ['crm__delete_all'];
    }),
    '/action_books/0/tools/0',
    'unknown_tool',
  ],
  [
    'action book names an undeclared skill',
    mutated((c) => (c.action_books[0].tools = ['skill__nope'])),
    '/action_books/0/tools/0',
    'unknown_tool',
  ],
  ['skill without description', withSkills(skill({ description: undefined })), '/skills/0/description', 'missing_key'],
  ['skill with an unknown key', withSkills(skill({ model: {} })), '/skills/0/model', 'unknown_key'],
  ['duplicate skill names', withSkills(skill(), skill()), '/skills/1/name', 'duplicate_skill_name'],
  [
    'skill tool with an unknown placeholder',
    withSkills(
      skill({
        tools: [{ name: 'lookup', description: 'x', endpoint: { url: 'https://api.example.com/orders/{{id}}' } }],
      }),
    ),
    '/skills/0/tools/0/endpoint/url',
    'unknown_placeholder',
  ],
  [
    "skill action book naming the parent's tool",
    withSkills(skill({ action_books: [{ condition: 'c', action: 'a', tools: ['save'] }] })),
    '/skills/0/action_books/0/tools/0',
    'unknown_tool',
  ],
  [
    'skill limits out of range',
    withSkills(skill({ limits: { max_steps: 0 } })),
    '/skills/0/limits/max_steps',
    'out_of_range',
  ],
];

describe('mcp_servers and skills in agent configs', () => {
  it.each(valid)('valid: %s', (_name, input) => {
    const result = checkAgentConfig(input);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it.each(invalid)('invalid: %s', (_name, input, path, code) => {
    const result = checkAgentConfig(JSON.parse(JSON.stringify(input)));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('compiles servers and skills: secrets required, headers rendered, skills as tools', () => {
    const doc = mutated((c) => {
      c.mcp_servers = [
        server({ headers: { Authorization: 'Bearer {{secrets.CRM_MCP}}' }, tools: ['search'], timeout: 2 }),
        { name: 'off', url: 'https://off.example.com/mcp', headers: { 'X-K': '{{secrets.OFF_ONLY}}' }, enabled: false },
      ];
      c.skills = [skill()];
    });
    const { config, hash } = loadAgentConfig(doc);
    const agent = compileAgent(config, hash);
    // A disabled server's secrets are not required.
    expect(agent.requiredSecrets).toEqual(['CRM_MCP', 'CRM_TOKEN', 'ORDERS_KEY']);
    const [crm] = agent.mcpServers;
    expect(crm).toMatchObject({
      name: 'crm',
      transport: 'http',
      enabled: true,
      timeoutMs: 2000,
      allowTools: ['search'],
    });
    expect(crm!.render({ CRM_MCP: 'tok' })).toEqual({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer tok' },
    });
    expect(() => crm!.render({})).toThrow(expect.objectContaining({ code: 'missing_secret' }));
    expect(agent.skills).toMatchObject([
      {
        name: 'research',
        toolName: 'skill__research',
        definition: { name: 'skill__research', parameters: { required: ['input'] } },
      },
    ]);
    expect(agent.skills[0]!.agent.systemPrompt).toContain('Researcher');
    expect(agent.skills[0]!.agent.tools.map((t) => t.name)).toEqual(['lookup']);
    // The skill is not one of the parent's own tools.
    expect(agent.tools.map((t) => t.name)).toEqual(['save']);
  });
});
