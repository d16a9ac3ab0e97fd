import type { AgentConfig, SkillConfig } from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import type { ToolDefinition } from '@agentry/llm';
import { pointer } from './json-pointer.ts';
import { SKILL_TOOL_PREFIX } from './mcp-servers.ts';
import { didYouMean } from './suggest.ts';

type Json = Record<string, unknown>;

/** Limits of the agent's own runs and conversations, which a skill (inside a run) cannot set. */
const AGENT_ONLY_LIMITS = ['waiting_timeout', 'max_queued_runs'] as const;

/** What a skill's sub-agent is asked: one free-text request written by the parent agent. */
const skillParameters = {
  type: 'object',
  properties: {
    input: { type: 'string', description: 'The request for this skill, with every detail it needs.' },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

/**
 * The tool name a skill is offered under.
 *
 * @example
 * skillToolName('research'); // 'skill__research'
 */
export function skillToolName(name: string): string {
  return `${SKILL_TOOL_PREFIX}${name}`;
}

/**
 * The tool the parent model calls to hand a request to a skill.
 *
 * @example
 * skillToolDefinition({ name: 'research', description: 'Finds facts', basic_settings: { name: 'R' } });
 */
export function skillToolDefinition(skill: Pick<SkillConfig, 'name' | 'description'>): ToolDefinition {
  return {
    name: skillToolName(skill.name),
    description: skill.description,
    parameters: structuredClone(skillParameters) as unknown as Record<string, unknown>,
  };
}

/** How deep skills nest: the agent calls a skill (1), which may call another skill (2), no deeper. */
export const MAX_SKILL_DEPTH = 2;

/**
 * A skill as an agent config of its own: its settings, action books, tools and limits, the
 * parent's MCP servers it names (their full definitions), plus the parent's declared context
 * variables (its tools may read the same `{{context.x}}`). The skills it may call appear as
 * stand-ins (name, description, settings) so its action books and `tool_choice` may name them;
 * the real ones are resolved from the parent by `compileAgent`. The model and the rest come from
 * the parent at run time.
 *
 * @example
 * const { config, hash } = loadAgentConfig(skillDocument(parent, parent.skills[0]));
 */
export function skillDocument(
  parent: Pick<AgentConfig, 'context' | 'end_user' | 'mcp_servers' | 'skills'>,
  skill: SkillConfig,
): Json {
  const servers = (parent.mcp_servers ?? []).filter((server) => skill.mcp_servers?.includes(server.name));
  const nested = (parent.skills ?? [])
    .filter((other) => skill.skills?.includes(other.name))
    .map((other) => ({ name: other.name, description: other.description, basic_settings: other.basic_settings }));
  return {
    basic_settings: skill.basic_settings,
    action_books: skill.action_books ?? [],
    tools: skill.tools ?? [],
    ...(skill.limits ? { limits: skill.limits } : {}),
    ...(parent.context ? { context: parent.context } : {}),
    ...(parent.end_user ? { end_user: parent.end_user } : {}),
    ...(servers.length > 0 ? { mcp_servers: servers } : {}),
    ...(nested.length > 0 ? { skills: nested } : {}),
  };
}

/** Tool names of the skills a document declares (for action books and tool_choice). */
export function declaredSkillToolNames(doc: Json): string[] {
  const skills = Array.isArray(doc.skills) ? doc.skills : [];
  return skills.flatMap((s) => (isObject(s) && typeof s.name === 'string' ? [skillToolName(s.name)] : []));
}

/**
 * Unique skill names, then each skill checked as an agent config of its own (`check` is
 * `checkAgentConfig`, passed in to keep the modules acyclic), after the references between skills
 * and to MCP servers. Nested issues are re-rooted under `/skills/<i>`; a skill the schema already
 * rejected is not checked twice, and issues about the shared context variables, MCP servers and
 * the stand-ins of called skills are left to the parent's own checks.
 *
 * @example
 * skillIssues(doc, schemaProblems, checkAgentConfig);
 */
export function skillIssues(
  doc: Json,
  found: readonly FieldIssue[],
  check: (input: unknown) => { ok: true } | { ok: false; issues: FieldIssue[] },
): FieldIssue[] {
  const skills = Array.isArray(doc.skills) ? doc.skills : [];
  const issues: FieldIssue[] = [...referenceIssues(doc, skills)];
  const seen: string[] = [];
  skills.forEach((skill, i) => {
    if (!isObject(skill)) return;
    if (typeof skill.name === 'string') {
      if (seen.includes(skill.name)) {
        issues.push({
          path: pointer('skills', i, 'name'),
          code: 'duplicate_skill_name',
          message: `skills[${i}] is named \`${skill.name}\`, like skills[${seen.indexOf(skill.name)}]`,
        });
      }
      seen.push(skill.name);
    }
    const at = pointer('skills', i);
    // A skill runs inside its parent's run, so only the agent's own limits can end a wait or
    // bound its conversation's queue.
    for (const limit of AGENT_ONLY_LIMITS) {
      if (!isObject(skill.limits) || skill.limits[limit] === undefined) continue;
      issues.push({
        path: pointer('skills', i, 'limits', limit),
        code: 'not_for_skills',
        message: `skills[${i}] sets limits.${limit}, but a skill runs inside the agent's run`,
        hint: `set ${limit} in the agent's own limits`,
      });
    }
    const blocked = (issue: FieldIssue) => issue.path === at || issue.path.startsWith(`${at}/`);
    // A skill whose references are wrong is not checked as an agent: its document would be too.
    if (found.some(blocked) || issues.some(blocked)) return;
    const result = check(
      skillDocument(doc as Pick<AgentConfig, 'context' | 'end_user'>, skill as unknown as SkillConfig),
    );
    if (result.ok) return;
    for (const issue of result.issues) {
      // The parent reports its own context variables, MCP servers and skills (the stand-ins' source).
      if (
        ['/context', '/end_user', '/mcp_servers', '/skills'].some(
          (p) => issue.path === p || issue.path.startsWith(`${p}/`),
        )
      ) {
        continue;
      }
      issues.push({ ...issue, path: `${at}${issue.path}` });
    }
  });
  return issues;
}

/**
 * What a skill's `mcp_servers` and `skills` name must exist in the parent; skills may not call
 * themselves or each other in a circle, and nest at most `MAX_SKILL_DEPTH` deep (every skill can
 * be called by the agent, so a skill another skill calls may call none).
 */
function referenceIssues(doc: Json, skills: unknown[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const servers = (Array.isArray(doc.mcp_servers) ? doc.mcp_servers : []).flatMap((s) =>
    isObject(s) && typeof s.name === 'string' ? [s.name] : [],
  );
  const names = skills.map((s) => (isObject(s) && typeof s.name === 'string' ? s.name : undefined));
  const refs = skills.map((s) =>
    isObject(s) && Array.isArray(s.skills) ? s.skills.filter((r): r is string => typeof r === 'string') : [],
  );
  skills.forEach((skill, i) => {
    if (!isObject(skill) || !Array.isArray(skill.mcp_servers)) return;
    skill.mcp_servers.forEach((name, j) => {
      if (typeof name !== 'string' || servers.includes(name)) return;
      issues.push({
        path: pointer('skills', i, 'mcp_servers', j),
        code: 'unknown_mcp_server',
        message: `skills[${i}] names MCP server \`${name}\`, which the config does not declare in mcp_servers`,
        hint:
          didYouMean(name, servers) ??
          (servers.length > 0 ? `MCP servers: ${servers.join(', ')}` : 'declare it in mcp_servers first'),
      });
    });
  });
  const indexOf = (name: string) => names.indexOf(name);
  // Whether skill `from` can reach skill `to` by following references.
  const reaches = (from: number, to: number, seen = new Set<number>()): boolean => {
    if (from === to) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return (refs[from] ?? []).some((name) => {
      const next = indexOf(name);
      return next >= 0 && reaches(next, to, seen);
    });
  };
  const known = names.filter((n): n is string => n !== undefined);
  // Edges that do not close a circle; the depth rule is checked on these.
  const callers = skills.map(() => [] as number[]);
  refs.forEach((list, i) => {
    list.forEach((name, j) => {
      const target = indexOf(name);
      const path = pointer('skills', i, 'skills', j);
      if (target < 0) {
        issues.push({
          path,
          code: 'unknown_skill',
          message: `skills[${i}] names skill \`${name}\`, which the config does not declare`,
          hint: didYouMean(name, known) ?? `skills: ${known.join(', ')}`,
        });
      } else if (reaches(target, i)) {
        issues.push({
          path,
          code: 'skill_cycle',
          message:
            target === i
              ? `skills[${i}] names itself`
              : `skills[${i}] names \`${name}\`, which leads back to \`${names[i]}\``,
          hint: 'skills may call other skills, but never in a circle',
        });
      } else {
        callers[target]!.push(i);
      }
    });
  });
  // The deepest a skill can be called: 1 by the agent, 1 + its deepest caller otherwise.
  const depth = (i: number): number => Math.max(1, ...callers[i]!.map((c) => depth(c) + 1));
  refs.forEach((list, i) => {
    if (list.length === 0 || depth(i) < MAX_SKILL_DEPTH) return;
    list.forEach((name, j) => {
      const target = indexOf(name);
      if (target < 0 || reaches(target, i)) return;
      issues.push({
        path: pointer('skills', i, 'skills', j),
        code: 'skill_depth_exceeded',
        message: `skills[${i}] (\`${names[i]}\`) is called by another skill, so it may not call \`${name}\`: skills nest at most ${MAX_SKILL_DEPTH} deep`,
        hint: `let the agent call \`${name}\` directly, or name it from the calling skill instead`,
      });
    });
  });
  return issues;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
