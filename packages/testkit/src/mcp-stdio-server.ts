import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpProtocolServer, defaultTestMcpTools, type TestMcpTool } from './mcp-server.ts';

/**
 * How to start the test MCP server over stdio, as a platform operator would define it in
 * `MCP_STDIO_SERVERS` (a real child process: this file run by the current Node).
 *
 * @example
 * const servers = parseStdioServers({ desk: testMcpStdioCommand({ TEST_MCP_GREETING: 'hello' }) });
 */
export function testMcpStdioCommand(env: Record<string, string> = {}): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  return { command: process.execPath, args: [fileURLToPath(import.meta.url)], env };
}

/**
 * The stdio server's tools: the default ones plus `environment`, which reports the process id,
 * `TEST_MCP_GREETING` (set by the operator's definition) and whether the platform's own
 * environment (DATABASE_URL, SECRETS_KEY) leaked into the child.
 */
function stdioTools(): TestMcpTool[] {
  return [
    ...defaultTestMcpTools(),
    {
      name: 'environment',
      description: 'Describes the server process',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              pid: process.pid,
              greeting: process.env.TEST_MCP_GREETING ?? null,
              leaked: ['DATABASE_URL', 'SECRETS_KEY', 'REDIS_URL'].filter((k) => process.env[k] !== undefined),
            }),
          },
        ],
      }),
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = new Map(stdioTools().map((t) => [t.name, t]));
  await createTestMcpProtocolServer(tools, () => {}).connect(new StdioServerTransport());
}
