import type { CompiledAgent } from '@agentry/config';
import type { AgentVersion } from '@agentry/db';
import { errors } from '@agentry/errors';
import { withAllowlist } from '@agentry/http-tools';
import { compareDiscovered, type DiscoveredTools, discoverMcpTools, readDiscoveredTools } from '@agentry/mcp';
import { openSecrets } from '@agentry/runner';
import type { ApiDeps } from '../deps.ts';

/** The tenant making the request: its id and the private-network allowlist the operator gave it. */
type Tenant = { id: string; egressAllowlist?: readonly string[] | null };

/**
 * Discovery when a version is created: every enabled MCP server is asked for its tools (through
 * the egress guard, with the tenant's secrets for its headers) and the checked list is stored
 * with the version. A server that is down, refused or missing an allow-listed tool makes the
 * upload a 422 `validation_failed` naming `/mcp_servers/<i>`; nothing is written. Returns null
 * when the agent has no enabled server.
 *
 * @example
 * const discoveredTools = await discoverForUpload(deps, c.var.tenant, compileAgent(config, hash));
 */
export async function discoverForUpload(
  deps: Pick<ApiDeps, 'db' | 'secretBox' | 'egress'>,
  tenant: Tenant,
  agent: CompiledAgent,
): Promise<DiscoveredTools | null> {
  const result = await rediscover(deps, tenant, agent);
  if (result === null) return null;
  if (!result.ok) {
    const count = result.issues.length;
    throw errors.validation(`MCP discovery found ${count} problem${count === 1 ? '' : 's'}`, result.issues);
  }
  return result.discovered;
}

/**
 * The re-check (`POST …/versions/{n}/mcp-check`): discovers again and compares with what the
 * version stored. Nothing changes for runs — they keep offering the stored tools — the warnings
 * tell a person to publish a new version (or fix the server).
 *
 * @example
 * return c.json(await mcpCheck(deps, c.var.tenant, compiled, version));
 */
export async function mcpCheck(
  deps: Pick<ApiDeps, 'db' | 'secretBox' | 'egress'>,
  tenant: Tenant,
  agent: CompiledAgent,
  version: Pick<AgentVersion, 'discoveredTools'>,
) {
  const cached = readDiscoveredTools(version.discoveredTools);
  const result = await rediscover(deps, tenant, agent);
  if (result === null) return { discovered_tools: cached ?? null, current_tools: null, warnings: [] };
  if (!result.ok) {
    return {
      discovered_tools: cached ?? null,
      current_tools: null,
      warnings: result.issues.map((issue) => ({ code: issue.code, message: issue.message, path: issue.path })),
    };
  }
  return {
    discovered_tools: cached ?? null,
    current_tools: result.discovered.tools,
    warnings: compareDiscovered(cached, result.discovered),
  };
}

/** The MCP part of `GET …/versions/{n}`: the stored list and the warnings discovery left. */
export function versionMcpView(version: Pick<AgentVersion, 'discoveredTools'>) {
  const discovered = readDiscoveredTools(version.discoveredTools);
  return { discovered_tools: discovered ?? null, warnings: discovered?.warnings ?? [] };
}

async function rediscover(deps: Pick<ApiDeps, 'db' | 'secretBox' | 'egress'>, tenant: Tenant, agent: CompiledAgent) {
  const servers = agent.mcpServers.filter((s) => s.enabled);
  if (servers.length === 0) return null;
  const names = [...new Set(servers.flatMap((s) => s.secretNames))];
  const secrets = await openSecrets(deps.db, deps.secretBox, tenant.id, names);
  // The same rules as the tenant's runs: the platform allowlist plus the tenant's own (operator-set).
  const egress = withAllowlist(deps.egress, tenant.egressAllowlist ?? []);
  return discoverMcpTools(agent, { secrets, egress });
}
