import type { FieldIssue } from '@agentry/errors';
import type { ToolDefinition } from '@agentry/llm';
import type { AgentConfig, SkillConfig } from './agent-config.ts';
import { pointer } from './json-pointer.ts';
import { SKILL_TOOL_PREFIX } from './mcp-servers.ts';

type Json = Record<string, unknown>;

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

/**
 * A skill as an agent config of its own: its settings, action books, tools and limits, plus the
 * parent's declared context variables (its tools may read the same `{{context.x}}`). The model
 * and the rest come from the parent at run time.
 *
 * @example
 * const { config, hash } = loadAgentConfig(skillDocument(parent, parent.skills[0]));
 */
export function skillDocument(parent: Pick<AgentConfig, 'context'>, skill: SkillConfig): Json {
  return {
    basic_settings: skill.basic_settings,
    action_books: skill.action_books ?? [],
    tools: skill.tools ?? [],
    ...(skill.limits ? { limits: skill.limits } : {}),
    ...(parent.context ? { context: parent.context } : {}),
  };
}

/** Tool names of the skills a document declares (for action books and tool_choice). */
export function declaredSkillToolNames(doc: Json): string[] {
  const skills = Array.isArray(doc.skills) ? doc.skills : [];
  return skills.flatMap((s) => (isObject(s) && typeof s.name === 'string' ? [skillToolName(s.name)] : []));
}

/**
 * Unique skill names, then each skill checked as an agent config of its own (`check` is
 * `checkAgentConfig`, passed in to keep the modules acyclic). Nested issues are re-rooted under
 * `/skills/<i>`; a skill the schema already rejected is not checked twice, and issues about the
 * shared context variables are left to the parent's own checks.
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
  const issues: FieldIssue[] = [];
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
    if (found.some((issue) => issue.path === at || issue.path.startsWith(`${at}/`))) return;
    const result = check(skillDocument(doc as Pick<AgentConfig, 'context'>, skill as unknown as SkillConfig));
    if (result.ok) return;
    for (const issue of result.issues) {
      if (issue.path.startsWith('/context')) continue;
      issues.push({ ...issue, path: `${at}${issue.path}` });
    }
  });
  return issues;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
