import type { AgentConfig } from '@agentry/contract';
import { errors } from '@agentry/errors';
import type { ToolChoice } from '@agentry/llm';
import { LRUCache } from 'lru-cache';
import { compileTool } from './compile-tool.ts';
import type { CompiledAgent, CompiledLimits, CompiledSkill, CompiledTool } from './compiled-agent.ts';
import { compiledToolsOf } from './compiled-tools-memo.ts';
import { contextNames } from './config-checks.ts';
import { defaults } from './defaults.ts';
import { loadAgentConfig } from './load-agent-config.ts';
import { compileMcpServers } from './mcp-servers.ts';
import { compilePermissions } from './permissions.ts';
import { skillDocument, skillToolDefinition, skillToolName } from './skills.ts';
import { buildSystemPrompt } from './system-prompt.ts';

// Bounded: a busy server holds the agents in use, never every config ever uploaded.
const compiled = new LRUCache<string, CompiledAgent>({ max: 500 });

/**
 * Turns a loaded config into what a run needs (system prompt, compiled tools, limits). Cached by
 * the config hash from `loadAgentConfig`, so requests never recompile.
 *
 * @example
 * const { config, hash } = loadAgentConfig(doc);
 * const agent = compileAgent(config, hash);
 * agent.tools[0].render({ email: 'a@b.c' }, { context: { conversationId: 'c1' }, secrets: {} });
 */
export function compileAgent(config: AgentConfig, hash: string): CompiledAgent {
  const cached = compiled.get(hash);
  if (cached) return cached;
  const agent = build(config, hash);
  compiled.set(hash, agent);
  return agent;
}

function build(config: AgentConfig, hash: string): CompiledAgent {
  const limits = compileLimits(config);
  const names = contextNames(config as unknown as Record<string, unknown>);
  const tools: CompiledTool[] =
    compiledToolsOf(config) ??
    config.tools.map((tool, i) => {
      const result = compileTool(tool, i, {
        contextNames: names,
        defaultTimeoutMs: limits.toolTimeoutMs,
        endUser: config.end_user,
      });
      // loadAgentConfig already compiled every tool; failing here means the config skipped it.
      if (!result.ok) throw errors.validation('The agent configuration was not validated', result.issues);
      return result.tool;
    });
  const model = config.model ?? {};
  const servers = compileMcpServers(config.mcp_servers ?? [], limits.toolTimeoutMs);
  if (!servers.ok) throw errors.validation('The agent configuration was not validated', servers.issues);
  const mcpServers = servers.servers;
  const skills = (config.skills ?? []).map((skill): CompiledSkill => {
    // Cached by content like every config: a skill shared by many agents compiles once.
    const loaded = loadAgentConfig(skillDocument(config, skill));
    return {
      name: skill.name,
      toolName: skillToolName(skill.name),
      definition: skillToolDefinition(skill),
      agent: compileAgent(loaded.config, loaded.hash),
      skills: [],
    };
  });
  // Skills a skill may call are the parent's own (the loader refused cycles and depth past 2).
  (config.skills ?? []).forEach((skill, i) => {
    skills[i]!.skills = skills.filter((other) => skill.skills?.includes(other.name));
  });
  const extraSecrets = [
    ...mcpServers.filter((s) => s.enabled).flatMap((s) => s.secretNames),
    ...skills.flatMap((s) => s.agent.requiredSecrets),
  ];
  return {
    hash,
    config,
    systemPrompt: buildSystemPrompt(config),
    tools,
    toolDefinitions: tools.map((t) => t.definition),
    model: {
      ...(model.provider ? { provider: model.provider } : {}),
      ...(model.name ? { name: model.name } : {}),
      ...(model.temperature !== undefined ? { temperature: model.temperature } : {}),
      ...(model.max_output_tokens !== undefined ? { maxOutputTokens: model.max_output_tokens } : {}),
      ...(model.api_key_secret ? { apiKeySecret: model.api_key_secret } : {}),
    },
    requiredSecrets: [
      ...new Set([
        ...tools.flatMap((t) => t.secretNames),
        ...(model.api_key_secret ? [model.api_key_secret] : []),
        ...extraSecrets,
      ]),
    ].sort(),
    limits,
    toolChoice: toolChoice(config.tool_choice),
    parallelToolCalls: config.parallel_tool_calls ?? true,
    busyPolicy: config.busy_policy ?? 'enqueue',
    requireDoneTool: config.require_done_tool ?? false,
    toolProtocol: config.tool_protocol ?? 'native',
    contextVariables: config.context ?? [],
    ...(config.end_user ? { endUser: config.end_user } : {}),
    ...(config.widget ? { widget: config.widget } : {}),
    mcpServers,
    skills,
    decidePermission: permissionDecider(config, tools),
  };
}

/** The agent's rules over its tools' own `approval` settings (see `CompiledAgent.decidePermission`). */
function permissionDecider(config: AgentConfig, tools: CompiledTool[]): CompiledAgent['decidePermission'] {
  const decide = compilePermissions(config.permissions ?? []);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name, args) => {
    const tool = byName.get(name);
    // A rule on `amount >= 1000` must also catch a call that leaves amount to its default of 5000.
    const checked = tool?.validateArguments(args);
    return decide(name, checked?.ok ? checked.value : args, tool?.approval === 'always' ? 'ask' : 'allow');
  };
}

function compileLimits(config: AgentConfig): CompiledLimits {
  const l = config.limits ?? {};
  return {
    maxSteps: l.max_steps ?? defaults.maxSteps,
    maxToolCalls: l.max_tool_calls ?? defaults.maxToolCalls,
    maxTokens: l.max_tokens ?? defaults.maxTokens,
    runTimeoutMs: Math.round((l.run_timeout ?? defaults.runTimeoutSeconds) * 1000),
    toolTimeoutMs: Math.round((l.tool_timeout ?? defaults.toolTimeoutSeconds) * 1000),
    maxQueuedRuns: l.max_queued_runs ?? defaults.maxQueuedRuns,
  };
}

function toolChoice(choice: string | undefined): ToolChoice {
  if (choice === undefined || choice === 'auto' || choice === 'none' || choice === 'required') return choice ?? 'auto';
  return { type: 'tool', name: choice };
}
