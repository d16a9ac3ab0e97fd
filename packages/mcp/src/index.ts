export { compareDiscovered } from './compare-discovered.ts';
export { type DiscoverOptions, discoverMcpTools } from './discover.ts';
export {
  type DiscoveredPrompt,
  type DiscoveredResource,
  type DiscoveredTool,
  type DiscoveredTools,
  type DiscoveryWarning,
  type McpCheckRecord,
  readDiscoveredTools,
} from './discovered-tools.ts';
export { type EgressTransportFetch, egressTransportFetch } from './egress-transport-fetch.ts';
export { mapCallResult } from './map-call-result.ts';
export { connectMcpServer, type McpConnection, type McpConnectOptions } from './mcp-connection.ts';
export { createMcpToolExecutor, type McpToolExecutor, type McpToolExecutorOptions } from './mcp-tool-executor.ts';
export type { McpBuiltinTool } from './resource-prompt-tools.ts';
export { parseStdioServers, type StdioServerDefinition, type StdioServerDefinitions } from './stdio-servers.ts';
