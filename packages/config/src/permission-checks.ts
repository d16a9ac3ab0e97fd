import type { FieldIssue } from '@agentry/errors';
import { pointer } from './json-pointer.ts';
import { MCP_PROMPT_TOOLS, MCP_RESOURCE_TOOLS, mcpToolName } from './mcp-servers.ts';
import { parameterSchemaIssues } from './parameter-schema-checks.ts';
import { argumentsValidator } from './parameters-validator.ts';
import { patternCanMatchPrefixed, toolPatternMatches } from './permissions.ts';
import { declaredSkillToolNames } from './skills.ts';
import { didYouMean } from './suggest.ts';

type Json = Record<string, unknown>;

/** The model sees a flow as the tool `flow__<name>` (as `@agentry/flows` names it, which depends on this package). */
const FLOW_TOOL_PREFIX = 'flow__';

/**
 * Cross-field rules of `permissions`: each rule's tool pattern must match at least one tool of
 * the agent (its HTTP and client tools, its skills as `skill__<name>`, its flows as
 * `flow__<name>`, and its MCP servers' tools
 * as `server__<tool>` — all of a server's names when it lists no `tools`, since those are only
 * known after discovery), and each `when` must be a JSON Schema the runtime can compile. A rule
 * that matches nothing is almost always a typo that would silently leave a tool unguarded.
 *
 * @example
 * permissionIssues({ tools: [{ name: 'refund_order' }], permissions: [{ tool: 'refnd_*', action: 'deny' }] });
 * // [{ path: '/permissions/0/tool', code: 'unknown_tool', ... }]
 */
export function permissionIssues(doc: Json, found: readonly FieldIssue[]): FieldIssue[] {
  const rules = Array.isArray(doc.permissions) ? doc.permissions : [];
  const names = exactToolNames(doc);
  const prefixes = openMcpPrefixes(doc);
  return rules.flatMap((rule, i) => {
    if (!isObject(rule)) return [];
    const issues: FieldIssue[] = [];
    const schemaRefused = found.some((issue) => issue.path === pointer('permissions', i, 'tool'));
    if (typeof rule.tool === 'string' && !schemaRefused && !matchesSomeTool(rule.tool, names, prefixes)) {
      issues.push(unmatchedPattern(rule.tool, i, names, prefixes));
    }
    if (isObject(rule.when)) issues.push(...whenIssues(rule.when, i, found));
    return issues;
  });
}

function matchesSomeTool(pattern: string, names: string[], prefixes: string[]): boolean {
  return (
    names.some((name) => toolPatternMatches(pattern, name)) ||
    prefixes.some((prefix) => patternCanMatchPrefixed(pattern, prefix))
  );
}

function unmatchedPattern(pattern: string, i: number, names: string[], prefixes: string[]): FieldIssue {
  const known = [...names, ...prefixes.map((p) => `${p}*`)];
  return {
    path: pointer('permissions', i, 'tool'),
    code: 'unknown_tool',
    message: `permission rule ${i + 1} is for \`${pattern}\`, which matches no tool of this agent`,
    hint:
      didYouMean(pattern, known) ??
      (known.length > 0 ? `tools of this agent: ${known.join(', ')}` : 'this agent has no tools'),
  };
}

/** The schema walk tool parameters get (RE2 patterns, local $refs), then a real compile. */
function whenIssues(when: Json, i: number, found: readonly FieldIssue[]): FieldIssue[] {
  const at = pointer('permissions', i, 'when');
  if (found.some((issue) => issue.path === at || issue.path.startsWith(`${at}/`))) return [];
  // `required` without a matching property is a plain "this argument is given" test here.
  const issues = parameterSchemaIssues(when, at).filter((issue) => issue.code !== 'unknown_required');
  if (issues.length > 0) return issues;
  try {
    argumentsValidator(when);
    return [];
  } catch (error) {
    return [
      {
        path: at,
        code: 'invalid_schema',
        message: `permission rule ${i + 1}'s \`when\` is not a JSON Schema that can run (${(error as Error).message})`,
      },
    ];
  }
}

/** Names known from the document itself: its tools, its skills, and MCP tools listed by name. */
function exactToolNames(doc: Json): string[] {
  const tools = (Array.isArray(doc.tools) ? doc.tools : []).flatMap((t) =>
    isObject(t) && typeof t.name === 'string' ? [t.name] : [],
  );
  const mcp = mcpServersOf(doc).flatMap((server) => {
    const name = server.name as string;
    const extra = [
      ...(server.expose_resources === true ? MCP_RESOURCE_TOOLS : []),
      ...(server.expose_prompts === true ? MCP_PROMPT_TOOLS : []),
    ];
    const own = Array.isArray(server.tools) ? server.tools.filter((t): t is string => typeof t === 'string') : [];
    return [...own, ...extra].map((tool) => mcpToolName(name, tool));
  });
  const flows = (Array.isArray(doc.flows) ? doc.flows : []).flatMap((f) =>
    isObject(f) && typeof f.name === 'string' ? [`${FLOW_TOOL_PREFIX}${f.name}`] : [],
  );
  return [...tools, ...declaredSkillToolNames(doc), ...mcp, ...flows];
}

/** `server__` of each MCP server that offers all its discovered tools (no `tools` list). */
function openMcpPrefixes(doc: Json): string[] {
  return mcpServersOf(doc)
    .filter((server) => !Array.isArray(server.tools))
    .map((server) => mcpToolName(server.name as string, ''));
}

function mcpServersOf(doc: Json): Json[] {
  const servers = Array.isArray(doc.mcp_servers) ? doc.mcp_servers : [];
  return servers.filter((s): s is Json => isObject(s) && typeof s.name === 'string');
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
