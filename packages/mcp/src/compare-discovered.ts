import { canonicalJson } from '@agentry/config';
import type { DiscoveredTools, DiscoveryWarning } from './discovered-tools.ts';

/**
 * What changed on the servers since publish: tools added (not offered until a new version is
 * published), removed (calls will fail) or changed (description or input schema; the stored
 * version is still what the model sees). One warning per server and kind.
 *
 * @example
 * compareDiscovered(version.discovered, await rediscover()); // [{ code: 'mcp_tools_added', server: 'crm', tools: ['export'] }]
 */
export function compareDiscovered(cached: DiscoveredTools | undefined, current: DiscoveredTools): DiscoveryWarning[] {
  const before = new Map((cached?.tools ?? []).map((t) => [t.name, t]));
  const after = new Map(current.tools.map((t) => [t.name, t]));
  const servers = [...new Set([...before.values(), ...after.values()].map((t) => t.server))].sort();
  const warnings: DiscoveryWarning[] = [];
  for (const server of servers) {
    const names = (map: typeof before) => [...map.values()].filter((t) => t.server === server).map((t) => t.tool);
    const added = names(after).filter((tool) => !before.has(`${server}__${tool}`));
    const removed = names(before).filter((tool) => !after.has(`${server}__${tool}`));
    const changed = names(after).filter((tool) => {
      const old = before.get(`${server}__${tool}`);
      const now = after.get(`${server}__${tool}`);
      return (
        old &&
        now &&
        canonicalJson([old.description, old.input_schema]) !== canonicalJson([now.description, now.input_schema])
      );
    });
    if (added.length > 0) {
      warnings.push({
        code: 'mcp_tools_added',
        message: `MCP server \`${server}\` now lists ${added.join(', ')}, which this version does not offer; publish a new version to use them`,
        server,
        tools: added,
      });
    }
    if (removed.length > 0) {
      warnings.push({
        code: 'mcp_tools_removed',
        message: `MCP server \`${server}\` no longer lists ${removed.join(', ')}; calls to them will fail`,
        server,
        tools: removed,
      });
    }
    if (changed.length > 0) {
      warnings.push({
        code: 'mcp_tools_changed',
        message: `MCP server \`${server}\` changed the description or input schema of ${changed.join(', ')}; the model still sees the published one`,
        server,
        tools: changed,
      });
    }
  }
  return warnings;
}
