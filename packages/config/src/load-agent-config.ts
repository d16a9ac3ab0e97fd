import type { AgentConfig, EndUserConfig, McpServerConfig } from '@agentry/contract';
import { errors, type FieldIssue } from '@agentry/errors';
import { LRUCache } from 'lru-cache';
import { canonicalJson, sha256 } from './canonical-hash.ts';
import { compileTool } from './compile-tool.ts';
import type { CompiledTool } from './compiled-agent.ts';
import { rememberCompiledTools } from './compiled-tools-memo.ts';
import { contextNames, crossFieldIssues } from './config-checks.ts';
import { schemaIssues } from './config-schema.ts';
import { defaults } from './defaults.ts';
import { documentLimitIssues, unencodableIssues } from './document-limits.ts';
import { compileMcpServers, mcpServerIssues } from './mcp-servers.ts';
import { permissionIssues } from './permission-checks.ts';
import { skillIssues } from './skills.ts';
import { webhookIssues } from './webhooks.ts';

type Outcome = { ok: true; config: AgentConfig } | { ok: false; issues: FieldIssue[] };

// Keyed by content hash: the same document uploaded again costs one hash, and memory stays bounded.
const outcomes = new LRUCache<string, Outcome>({ max: 1000 });

/**
 * Validates an agent configuration (parsed JSON) and returns it with its content hash. Every problem
 * is reported in one `validation_failed` (422) error, each with a JSON pointer, a stable code, a
 * plain message and, where we can guess, a hint.
 *
 * @example
 * const { config, hash } = loadAgentConfig(JSON.parse(text));
 * const agent = compileAgent(config, hash);
 * // A document that never changes under its key is checked once:
 * loadAgentConfig(version.config, { cacheKey: `${version.id}:${version.contentHash}` });
 */
export function loadAgentConfig(
  input: unknown,
  options: { cacheKey?: string } = {},
): { config: AgentConfig; hash: string } {
  const key = options.cacheKey;
  const known = key === undefined ? undefined : loadedByKey.get(key);
  if (known) return known;
  const result = checkAgentConfig(input);
  if (!result.ok) {
    const count = result.issues.length;
    throw errors.validation(`The agent configuration has ${count} problem${count === 1 ? '' : 's'}`, result.issues);
  }
  const loaded = { config: result.config, hash: result.hash };
  if (key !== undefined) loadedByKey.set(key, loaded);
  return loaded;
}

/**
 * Configs already loaded under a caller's `cacheKey`, for documents that never change under their
 * key — an agent version's row (its id and content hash): loading it again then skips the canonical
 * JSON and hash of the whole document (done on every message and run otherwise).
 */
const loadedByKey = new LRUCache<string, { config: AgentConfig; hash: string }>({ max: 1000 });

/**
 * Like `loadAgentConfig` but returns the issues instead of throwing (for the CLI and editors).
 *
 * @example
 * const result = checkAgentConfig(doc);
 * if (!result.ok) for (const issue of result.issues) console.log(issue.path, issue.message);
 */
export function checkAgentConfig(
  input: unknown,
): { ok: true; config: AgentConfig; hash: string } | { ok: false; issues: FieldIssue[]; hash?: string } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ path: '', code: 'wrong_type', message: 'the configuration must be a JSON object' }],
    };
  }
  const normalized = withListsPresent(input as Record<string, unknown>);
  // Before the canonical JSON, which throws on these (and recurses as deep as the document goes).
  const unencodable = unencodableIssues(normalized, defaults.maxConfigDepth);
  if (unencodable.length > 0) return { ok: false, issues: unencodable };
  const json = canonicalJson(normalized);
  const limitIssues = documentLimitIssues(json, normalized, {
    maxBytes: defaults.maxConfigBytes,
    maxDepth: defaults.maxConfigDepth,
  });
  if (limitIssues.length > 0) return { ok: false, issues: limitIssues };
  const hash = sha256(json);
  let outcome = outcomes.get(hash);
  if (!outcome) {
    outcome = validate(normalized);
    outcomes.set(hash, outcome);
  }
  return outcome.ok ? { ok: true, config: outcome.config, hash } : { ok: false, issues: outcome.issues, hash };
}

function validate(doc: Record<string, unknown>): Outcome {
  const issues = [...schemaIssues(doc), ...crossFieldIssues(doc), ...mcpServerIssues(doc)];
  issues.push(...webhookIssues(doc), ...permissionIssues(doc, issues));
  const tools: CompiledTool[] = [];
  issues.push(...templateIssues(doc, issues, tools));
  issues.push(...mcpTemplateIssues(doc, issues), ...skillIssues(doc, issues, checkAgentConfig));
  if (issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  // Frozen: the cached config is shared by every caller that uploads the same content.
  const config = deepFreeze(structuredClone(doc)) as unknown as AgentConfig;
  rememberCompiledTools(config, tools);
  return { ok: true, config };
}

/** Compiles each schema-valid tool to find template problems (unknown placeholders, hosts, ...). */
function templateIssues(
  doc: Record<string, unknown>,
  found: FieldIssue[],
  compiledTools: CompiledTool[],
): FieldIssue[] {
  const tools = Array.isArray(doc.tools) ? doc.tools : [];
  const names = contextNames(doc);
  const limits = doc.limits as { tool_timeout?: number } | undefined;
  const defaultTimeoutMs = Math.round((limits?.tool_timeout ?? defaults.toolTimeoutSeconds) * 1000);
  const endUser = endUserOf(doc);
  return tools.flatMap((tool, i) => {
    const prefix = `/tools/${i}`;
    // Templates can still be checked when only unrelated keys of the tool are wrong.
    const blocking = ['/endpoint/url', '/endpoint/headers', '/endpoint/query_params', '/endpoint/body', '/parameters'];
    const blocked = (path: string) =>
      path === prefix ||
      path === `${prefix}/endpoint` ||
      blocking.some((b) => path === prefix + b || path.startsWith(`${prefix}${b}/`));
    if (found.some((issue) => blocked(issue.path))) return [];
    const compiled = compileTool(tool, i, { contextNames: names, defaultTimeoutMs, endUser });
    if (!compiled.ok) return compiled.issues;
    compiledTools.push(compiled.tool);
    return [];
  });
}

/** The document's `end_user` as far as templates need it (its schema issues are reported apart). */
function endUserOf(doc: Record<string, unknown>): EndUserConfig | undefined {
  const section = doc.end_user;
  if (section === null || typeof section !== 'object' || Array.isArray(section)) return undefined;
  const { claims, forward_token } = section as Record<string, unknown>;
  return {
    ...(section as EndUserConfig),
    claims: Array.isArray(claims) ? claims.filter((c): c is string => typeof c === 'string') : [],
    forward_token: forward_token === true,
  };
}

/** URL and header templates of the MCP servers the schema accepted. */
function mcpTemplateIssues(doc: Record<string, unknown>, found: FieldIssue[]): FieldIssue[] {
  if (!Array.isArray(doc.mcp_servers)) return [];
  const limits = doc.limits as { tool_timeout?: number } | undefined;
  const timeoutMs = Math.round((limits?.tool_timeout ?? defaults.toolTimeoutSeconds) * 1000);
  const compiled = compileMcpServers(doc.mcp_servers as McpServerConfig[], timeoutMs, found);
  return compiled.ok ? [] : compiled.issues;
}

function withListsPresent(input: Record<string, unknown>): Record<string, unknown> {
  return { ...input, action_books: input.action_books ?? [], tools: input.tools ?? [] };
}

function sortIssues(issues: FieldIssue[]): FieldIssue[] {
  return issues.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }) || a.code.localeCompare(b.code));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
