/**
 * What publish-time discovery stored with an agent version (`agent_versions.discovered_tools`),
 * in the API's snake_case: runs offer exactly these tools, never whatever the server lists later.
 */
export interface DiscoveredTools {
  discovered_at: string;
  tools: DiscoveredTool[];
  resources: DiscoveredResource[];
  prompts: DiscoveredPrompt[];
  /** Tools left out at publish (unsafe schema, unusable name), for the dashboard. */
  warnings: DiscoveryWarning[];
  /**
   * The last re-check (`POST …/mcp-check`), stored so the dashboard shows a changed server tool
   * list as a warning; runs never read it.
   */
  last_check?: McpCheckRecord;
}

/** What the last re-check of a version's MCP servers found. */
export interface McpCheckRecord {
  checked_at: string;
  warnings: DiscoveryWarning[];
}

/** One MCP tool as the model sees it. */
export interface DiscoveredTool {
  /** `server__tool`: the name offered to the model. */
  name: string;
  server: string;
  /** The server's own name for it (or the builtin's name). */
  tool: string;
  /** Set for the resource and prompt tools we offer for a server (`expose_resources`, `expose_prompts`). */
  builtin?: 'list_resources' | 'read_resource' | 'list_prompts' | 'get_prompt';
  description: string;
  /** The server's input schema after the tenant-schema checks (`$schema` dropped). */
  input_schema: Record<string, unknown>;
}

export interface DiscoveredResource {
  server: string;
  uri: string;
  name: string;
  mime_type?: string;
}

export interface DiscoveredPrompt {
  server: string;
  name: string;
  description?: string;
}

/** Something discovery or a re-check wants a person to see; never blocks a run. */
export interface DiscoveryWarning {
  code: string;
  message: string;
  /** JSON pointer into the config, e.g. `/mcp_servers/0`. */
  path?: string;
  server?: string;
  tools?: string[];
}

/**
 * Reads the stored column defensively (it is plain jsonb): anything unexpected counts as nothing
 * discovered, so a run offers no MCP tool rather than an unchecked one.
 *
 * @example
 * const discovered = readDiscoveredTools(version.discoveredTools);
 */
export function readDiscoveredTools(value: unknown): DiscoveredTools | undefined {
  if (value === null || typeof value !== 'object' || !Array.isArray((value as DiscoveredTools).tools)) return undefined;
  return value as DiscoveredTools;
}
