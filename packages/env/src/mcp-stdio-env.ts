import { readFileSync } from 'node:fs';
import { parseStdioServers, type StdioServerDefinitions } from '@agentry/mcp';
import { type Env, EnvError, envString } from './env.ts';

export type { StdioServerDefinitions };

/**
 * `MCP_STDIO_SERVERS`: the stdio MCP servers the platform operator runs (self-hosted only), as
 * JSON text or the path of a JSON file: `{"files": {"command": "node", "args": ["files.js"],
 * "env": {"ROOT": "/srv"}, "cwd": "/srv"}}`. Tenant configs may then name one
 * (`{"transport": "stdio", "server": "files"}`); they can never give a command. Undefined when
 * unset (stdio refused at upload).
 *
 * @example
 * const servers = mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: '{"files":{"command":"node","args":["f.js"]}}' });
 */
export function mcpStdioServersFromEnv(env: Env): StdioServerDefinitions | undefined {
  const value = envString(env, 'MCP_STDIO_SERVERS');
  if (value === undefined) return undefined;
  let text = value;
  if (!value.startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (error) {
      throw new EnvError('MCP_STDIO_SERVERS', `expected JSON or a readable JSON file: ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EnvError('MCP_STDIO_SERVERS', `not valid JSON: ${(error as Error).message}`);
  }
  try {
    const servers = parseStdioServers(parsed);
    return servers.size > 0 ? servers : undefined;
  } catch (error) {
    throw new EnvError('MCP_STDIO_SERVERS', (error as Error).message);
  }
}
