import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpStdioServersFromEnv } from './mcp-stdio-env.ts';

describe('MCP_STDIO_SERVERS', () => {
  it('is unset by default: no stdio server', () => {
    expect(mcpStdioServersFromEnv({})).toBeUndefined();
    expect(mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: '{}' })).toBeUndefined();
  });

  it('reads JSON text or a JSON file', () => {
    const text = '{"files": {"command": "node", "args": ["files.js"], "env": {"ROOT": "/srv"}, "cwd": "/srv"}}';
    expect(mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: text })?.get('files')).toEqual({
      command: 'node',
      args: ['files.js'],
      env: { ROOT: '/srv' },
      cwd: '/srv',
    });
    const dir = mkdtempSync(join(tmpdir(), 'stdio-'));
    try {
      writeFileSync(join(dir, 'servers.json'), text);
      expect([...(mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: join(dir, 'servers.json') })?.keys() ?? [])]).toEqual([
        'files',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the process on a bad value, naming the variable and the problem', () => {
    expect(() => mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: '{"files": ' })).toThrow(
      /MCP_STDIO_SERVERS: not valid JSON/,
    );
    expect(() => mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: '/nope/servers.json' })).toThrow(
      /MCP_STDIO_SERVERS: expected JSON or a readable JSON file/,
    );
    expect(() => mcpStdioServersFromEnv({ MCP_STDIO_SERVERS: '{"files": {"args": []}}' })).toThrow(/"files".command/);
  });
});
