import { type CompiledAgent, stdioServerIssues } from '@agentry/config';
import { type AgentVersion, recordMcpCheck } from '@agentry/db';
import { errors } from '@agentry/errors';
import { withAllowlist } from '@agentry/http-tools';
import {
  compareDiscovered,
  type DiscoveredTools,
  type DiscoveryWarning,
  discoverMcpTools,
  type McpCheckRecord,
  readDiscoveredTools,
} from '@agentry/mcp';
import { openSecrets } from '@agentry/run-service';
import type { ApiDeps } from '../deps.ts';

type Deps = Pick<ApiDeps, 'db' | 'secretBox' | 'egress' | 'mcpStdioServers'>;

/** The tenant making the request: its id and the private-network allowlist the operator gave it. */
type Tenant = { id: string; egressAllowlist?: readonly string[] | null };

/**
 * Discovery when a version is created: every enabled MCP server is asked for its tools (through
 * the egress guard, with the tenant's secrets for its headers; a stdio server by starting the
 * operator's program) and the checked list is stored with the version. A stdio server the
 * operator has not enabled or defined (`stdio_not_enabled`, `unknown_stdio_server`), or a server
 * that is down, refused or missing an allow-listed tool makes the upload a 422
 * `validation_failed` naming `/mcp_servers/<i>`; nothing is written. Returns null when the agent
 * has no enabled server.
 *
 * @example
 * const discoveredTools = await discoverForUpload(deps, c.var.tenant, compileAgent(config, hash));
 */
export async function discoverForUpload(
  deps: Deps,
  tenant: Tenant,
  agent: CompiledAgent,
): Promise<DiscoveredTools | null> {
  // Checked before anything connects: a tenant config only names what the operator runs.
  assertStdioServersAllowed(deps, agent.config);
  const result = await rediscover(deps, tenant, agent);
  if (result === null) return null;
  if (!result.ok) {
    const count = result.issues.length;
    throw errors.validation(`MCP discovery found ${count} problem${count === 1 ? '' : 's'}`, result.issues);
  }
  return result.discovered;
}

/**
 * Refuses (422 `validation_failed`) stdio MCP servers the operator has not enabled or defined;
 * shared by the upload and the validate endpoint so both give the same answer.
 *
 * @example
 * assertStdioServersAllowed(deps, config);
 */
export function assertStdioServersAllowed(deps: Deps, config: CompiledAgent['config']): void {
  const stdio = stdioServerIssues(config, [...(deps.mcpStdioServers?.keys() ?? [])]);
  if (stdio.length === 0) return;
  const count = stdio.length;
  throw errors.validation(`The agent configuration has ${count} problem${count === 1 ? '' : 's'}`, stdio);
}

/**
 * The re-check (`POST …/versions/{n}/mcp-check`): discovers again and compares with what the
 * version stored. Nothing changes for runs — they keep offering the stored tools — the warnings
 * tell a person to publish a new version (or fix the server). The result is stored with the
 * version (`last_check`), so `GET …/versions/{n}` keeps showing a changed tool list as a warning.
 *
 * @example
 * return c.json(await mcpCheck(deps, c.var.tenant, compiled, version));
 */
export async function mcpCheck(
  deps: Deps,
  tenant: Tenant,
  agent: CompiledAgent,
  version: Pick<AgentVersion, 'id' | 'discoveredTools'>,
) {
  const cached = readDiscoveredTools(version.discoveredTools);
  const result = await rediscover(deps, tenant, agent);
  if (result === null) return { discovered_tools: cached ?? null, current_tools: null, warnings: [], last_check: null };
  const warnings: DiscoveryWarning[] = result.ok
    ? compareDiscovered(cached, result.discovered)
    : result.issues.map((issue) => ({ code: issue.code, message: issue.message, path: issue.path }));
  const check: McpCheckRecord = { checked_at: new Date().toISOString(), warnings };
  // Only a version that stored a discovery has somewhere to keep the check.
  if (cached) await recordMcpCheck(deps.db, tenant.id, version.id, check as unknown as Record<string, unknown>);
  return {
    discovered_tools: cached ? { ...cached, last_check: check } : null,
    current_tools: result.ok ? result.discovered.tools : null,
    warnings,
    last_check: check,
  };
}

/**
 * The MCP part of `GET …/versions/{n}`: the stored list, the last re-check, and every warning a
 * person should see — those discovery left at publish and those of the last re-check.
 */
export function versionMcpView(version: Pick<AgentVersion, 'discoveredTools'>) {
  const discovered = readDiscoveredTools(version.discoveredTools);
  const lastCheck = discovered?.last_check ?? null;
  return {
    discovered_tools: discovered ?? null,
    warnings: [...(discovered?.warnings ?? []), ...(lastCheck?.warnings ?? [])],
    last_check: lastCheck,
  };
}

async function rediscover(deps: Deps, tenant: Tenant, agent: CompiledAgent) {
  const servers = agent.mcpServers.filter((s) => s.enabled);
  if (servers.length === 0) return null;
  const names = [...new Set(servers.flatMap((s) => s.secretNames))];
  const secrets = await openSecrets(deps.db, deps.secretBox, tenant.id, names);
  // The same rules as the tenant's runs: the platform allowlist plus the tenant's own (operator-set).
  const egress = withAllowlist(deps.egress, tenant.egressAllowlist ?? []);
  return discoverMcpTools(agent, {
    secrets,
    egress,
    ...(deps.mcpStdioServers ? { stdioServers: deps.mcpStdioServers } : {}),
  });
}
