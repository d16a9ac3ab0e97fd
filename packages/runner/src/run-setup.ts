import { withToolProtocol } from '@agentry/agent';
import {
  type CompiledAgent,
  compileAgent,
  loadAgentConfig,
  modelVisibleContext,
  type ToolContext,
} from '@agentry/config';
import { type Conversation, type Db, getAgentVersion, getConversation, type Run } from '@agentry/db';
import { AppError } from '@agentry/errors';
import { createHttpToolExecutor, type EgressPolicy } from '@agentry/http-tools';
import type { LanguageModel } from '@agentry/llm';
import type { SecretBox } from '@agentry/secrets';
import { createModel, type ModelProviderSettings, resolveModel } from './model-settings.ts';
import { idempotencyKeyFor } from './recording-executor.ts';
import { systemContext } from './system-context.ts';
import { openSecrets } from './tenant-secrets.ts';

export interface RunSetup {
  agent: CompiledAgent;
  conversation: Conversation;
  model: LanguageModel;
  system: string;
  http: ReturnType<typeof createHttpToolExecutor>;
  /** MCP and skills (issue 9): what their tools read, and the MCP tools stored at publish. */
  toolContext: ToolContext;
  discoveredTools: unknown;
}

/** Context windows by provider, for compaction; configs do not name one yet. */
const CONTEXT_WINDOW = { openai: 128_000, openai_compatible: 32_000, anthropic: 200_000 } as const;

export function contextWindowFor(provider: keyof typeof CONTEXT_WINDOW): number {
  return CONTEXT_WINDOW[provider];
}

/** Loads what a run needs: its pinned agent version compiled, the conversation, model and tools. */
export async function setUpRun(
  db: Db,
  run: Run,
  models: ModelProviderSettings,
  fetchImpl: typeof fetch | undefined,
  secretBox: SecretBox | undefined,
  egress: EgressPolicy | undefined,
): Promise<RunSetup & { provider: keyof typeof CONTEXT_WINDOW }> {
  // Both reads at once (one round trip when `db` is a transaction: its queries are pipelined).
  const [version, conversation] = await Promise.all([
    getAgentVersion(db, run.tenantId, run.agentId, run.agentVersion),
    getConversation(db, run.tenantId, run.conversationId),
  ]);
  if (!version || !conversation) {
    throw new AppError({
      code: 'run_target_missing',
      message: 'The run’s agent version or conversation no longer exists',
      category: 'system',
      retryable: false,
    });
  }
  const { config, hash } = loadAgentConfig(version.config);
  const agent = compileAgent(config, hash);
  const secrets = await openSecrets(db, secretBox, run.tenantId, agent.requiredSecrets);
  const apiKey = agent.model.apiKeySecret ? secrets[agent.model.apiKeySecret] : undefined;
  const resolved = resolveModel({ ...agent.model, ...(apiKey ? { apiKey } : {}) }, models);
  const base = createModel(resolved, models);
  const model = agent.toolProtocol === 'native' ? base : withToolProtocol(base, agent.toolProtocol);
  const toolContext: ToolContext = { context: systemContext(conversation, config.basic_settings.chatbot_id), secrets };
  const http = createHttpToolExecutor({
    agent,
    context: toolContext,
    idempotencyKey: (call) => idempotencyKeyFor(run.id, call.id),
    ...(egress ? { egress } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const visible = modelVisibleContext(agent.contextVariables, conversation.context);
  const system = visible ? `${agent.systemPrompt}\n\n${visible}` : agent.systemPrompt;
  return {
    agent,
    conversation,
    model,
    system,
    http,
    toolContext,
    discoveredTools: version.discoveredTools,
    provider: resolved.provider,
  };
}
