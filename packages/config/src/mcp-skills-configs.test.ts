import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { stdioServerIssues } from './mcp-servers.ts';
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
    'a stdio server the operator defined, by name',
    withServers({ name: 'files', transport: 'stdio', server: 'local-files', timeout: 3, tools: ['read'] }),
  ],
  [
    'resources and prompts exposed, named in action books',
    mutated((c) => {
      c.mcp_servers = [server({ tools: ['search'], expose_resources: true, expose_prompts: true })];
      c.action_books[0].tools = ['crm__list_resources', 'crm__read_resource', 'crm__get_prompt'];
    }),
  ],
  [
    'skills using MCP servers and another skill',
    mutated((c) => {
      c.mcp_servers = [server({ tools: ['search'] })];
      c.skills = [
        skill({
          mcp_servers: ['crm'],
          skills: ['orders'],
          action_books: [{ condition: 'c', action: 'a', tools: ['crm__search', 'skill__orders', 'lookup'] }],
        }),
        skill({ name: 'orders', mcp_servers: ['crm'] }),
      ];
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
  [
    'stdio server without an operator name',
    withServers({ name: 'gh', transport: 'stdio' }),
    '/mcp_servers/0/server',
    'missing_key',
  ],
  [
    'seed-style stdio server with a command',
    withServers({ name: 'gh', transport: 'stdio', server: 'gh', command: 'npx' }),
    '/mcp_servers/0/command',
    'unknown_key',
  ],
  [
    'stdio server with args and env',
    withServers({ name: 'gh', transport: 'stdio', server: 'gh', args: ['-y'], env: { A: 'b' } }),
    '/mcp_servers/0/env',
    'unknown_key',
  ],
  [
    'stdio server with a url',
    withServers({ name: 'gh', transport: 'stdio', server: 'gh', url: 'https://x.example.com' }),
    '/mcp_servers/0/url',
    'not_for_stdio',
  ],
  [
    'stdio server with headers',
    withServers({ name: 'gh', transport: 'stdio', server: 'gh', headers: { A: '{{secrets.B}}' } }),
    '/mcp_servers/0/headers',
    'not_for_stdio',
  ],
  ['server key on an HTTP server', withServers(server({ server: 'gh' })), '/mcp_servers/0/server', 'stdio_only_key'],
  [
    'operator server name with a path',
    withServers({ name: 'gh', transport: 'stdio', server: '../bin/sh' }),
    '/mcp_servers/0/server',
    'invalid_format',
  ],
  [
    'action book names a resource tool of a server that does not expose them',
    mutated((c) => {
      c.mcp_servers = [server({ tools: ['search'] })];
      c.action_books[0].tools = ['crm__read_resource'];
    }),
    '/action_books/0/tools/0',
    'unknown_tool',
  ],
  [
    'skill naming an undeclared MCP server',
    withSkills(skill({ mcp_servers: ['crm'] })),
    '/skills/0/mcp_servers/0',
    'unknown_mcp_server',
  ],
  ['skill naming an unknown skill', withSkills(skill({ skills: ['nope'] })), '/skills/0/skills/0', 'unknown_skill'],
  ['skill naming itself', withSkills(skill({ skills: ['research'] })), '/skills/0/skills/0', 'skill_cycle'],
  [
    'skills naming each other',
    withSkills(skill({ skills: ['orders'] }), skill({ name: 'orders', skills: ['research'] })),
    '/skills/1/skills/0',
    'skill_cycle',
  ],
  [
    'skills nested three deep',
    withSkills(
      skill({ skills: ['orders'] }),
      skill({ name: 'orders', skills: ['billing'] }),
      skill({ name: 'billing' }),
    ),
    '/skills/1/skills/0',
    'skill_depth_exceeded',
  ],
  [
    'skill action book naming a server tool the skill does not name',
    mutated((c) => {
      c.mcp_servers = [server()];
      c.skills = [skill({ action_books: [{ condition: 'c', action: 'a', tools: ['crm__search'] }] })];
    }),
    '/skills/0/action_books/0/tools/0',
    'unknown_tool',
  ],
  [
    'skill HTTP tool inside the name space of a server it names',
    mutated((c) => {
      c.mcp_servers = [server()];
      const s = skill({ mcp_servers: ['crm'] });
      s.tools[0].name = 'crm__lookup';
      c.skills = [s];
    }),
    '/skills/0/tools/0/name',
    'tool_name_collision',
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
  [
    'skill with its own waiting_timeout',
    withSkills(skill({ limits: { waiting_timeout: 60 } })),
    '/skills/0/limits/waiting_timeout',
    'not_for_skills',
  ],
  [
    'skill with its own max_queued_runs',
    withSkills(skill({ limits: { max_queued_runs: 3 } })),
    '/skills/0/limits/max_queued_runs',
    'not_for_skills',
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

  it('compiles stdio servers as operator names, and checks them against what the operator defined', () => {
    const doc = mutated((c) => {
      c.mcp_servers = [{ name: 'files', transport: 'stdio', server: 'local-files', expose_resources: true }, server()];
    });
    const { config, hash } = loadAgentConfig(doc);
    const [files, crm] = compileAgent(config, hash).mcpServers;
    expect(files).toMatchObject({
      transport: 'stdio',
      stdioServer: 'local-files',
      exposeResources: true,
      exposePrompts: false,
    });
    expect(files).not.toHaveProperty('url');
    expect(crm).toMatchObject({ transport: 'http', exposeResources: false });
    expect(stdioServerIssues(config, ['local-files'])).toEqual([]);
    expect(stdioServerIssues(config, [])).toEqual([
      expect.objectContaining({
        path: '/mcp_servers/0/transport',
        code: 'stdio_not_enabled',
        hint: expect.any(String),
      }),
    ]);
    expect(stdioServerIssues(config, ['local-file', 'git'])).toEqual([
      expect.objectContaining({
        path: '/mcp_servers/0/server',
        code: 'unknown_stdio_server',
        hint: expect.stringContaining('local-file'),
      }),
    ]);
  });

  it('compiles skills with the MCP servers they name and the skills they may call', () => {
    const doc = mutated((c) => {
      c.mcp_servers = [
        server({ headers: { Authorization: 'Bearer {{secrets.CRM_MCP}}' } }),
        { name: 'desk', url: 'https://desk.example.com/mcp' },
      ];
      c.skills = [skill({ mcp_servers: ['crm'], skills: ['orders'] }), skill({ name: 'orders', tools: [] })];
    });
    const { config, hash } = loadAgentConfig(doc);
    const agent = compileAgent(config, hash);
    const [research, orders] = agent.skills;
    expect(research!.agent.mcpServers.map((s) => s.name)).toEqual(['crm']);
    expect(research!.agent.requiredSecrets).toEqual(['CRM_MCP', 'ORDERS_KEY']);
    expect(research!.skills).toEqual([orders]);
    expect(orders!.skills).toEqual([]);
    expect(orders!.agent.mcpServers).toEqual([]);
  });
});
