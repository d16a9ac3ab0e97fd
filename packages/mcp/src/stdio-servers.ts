/** How the platform operator starts one stdio MCP server (never from a tenant config). */
export interface StdioServerDefinition {
  command: string;
  args: string[];
  /** Added to a minimal inherited environment (PATH, HOME, ...): the platform's own secrets never reach the program. */
  env: Record<string, string>;
  cwd?: string;
}

/** The operator's stdio servers by name; tenant configs refer to them as `{"transport": "stdio", "server": "<name>"}`. */
export type StdioServerDefinitions = ReadonlyMap<string, StdioServerDefinition>;

/** Names tenant configs may use (the config schema's rule for `mcp_servers[].server`). */
const namePattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Reads the operator's stdio server definitions (the parsed JSON of `MCP_STDIO_SERVERS`):
 * `{ "<name>": { "command": "node", "args": ["server.js"], "env": { "K": "v" }, "cwd": "/srv" } }`.
 * Throws an Error naming the bad key.
 *
 * @example
 * const servers = parseStdioServers(JSON.parse(text));
 * servers.get('files'); // { command: 'node', args: ['files.js'], env: {} }
 */
export function parseStdioServers(value: unknown): StdioServerDefinitions {
  if (!isObject(value)) throw new Error('expected a JSON object of server name → { command, args, env, cwd }');
  const servers = new Map<string, StdioServerDefinition>();
  for (const [name, raw] of Object.entries(value)) {
    if (!namePattern.test(name)) {
      throw new Error(`"${name}": names start with a letter and hold only letters, digits, _ and - (at most 64)`);
    }
    if (!isObject(raw)) throw new Error(`"${name}": expected an object with a command`);
    const unknown = Object.keys(raw).filter((key) => !['command', 'args', 'env', 'cwd'].includes(key));
    if (unknown.length > 0) throw new Error(`"${name}": unknown key ${unknown.join(', ')}`);
    if (typeof raw.command !== 'string' || raw.command.trim() === '') {
      throw new Error(`"${name}".command: expected the program to run`);
    }
    const args = raw.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
      throw new Error(`"${name}".args: expected an array of strings`);
    }
    const env = raw.env ?? {};
    if (!isObject(env) || !Object.values(env).every((v) => typeof v === 'string')) {
      throw new Error(`"${name}".env: expected an object of strings`);
    }
    if (raw.cwd !== undefined && typeof raw.cwd !== 'string') throw new Error(`"${name}".cwd: expected a path`);
    servers.set(name, {
      command: raw.command,
      args: [...(args as string[])],
      env: { ...(env as Record<string, string>) },
      ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
    });
  }
  return servers;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
