import { withToolProtocol } from '@agentry/agent';
import { type CompiledAgent, modelVisibleContext, type ToolContext } from '@agentry/config';
import {
  type Conversation,
  type Db,
  getSealedModelProviders,
  getSealedSecrets,
  type ModelProviderRow,
  type Run,
  type RunStartRows,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import {
  createHttpToolExecutor,
  type EgressPolicy,
  egressModelFetch,
  type HttpToolExecutorOptions,
  strictEgressPolicy,
} from '@agentry/http-tools';
import type { LanguageModel } from '@agentry/llm';
import { createModel, type ModelProviderSettings, resolveModelSpec } from '@agentry/models';
import {
  type CompiledVersion,
  compileVersion,
  openEndUser,
  openSealedSecrets,
  type SealedSecret,
  tenantModelSettings,
  versionModel,
} from '@agentry/run-service';
import type { SecretBox } from '@agentry/secrets';
import { idempotencyKeyFor } from './recording-executor.ts';
import { systemContext } from './system-context.ts';

export interface RunSetup {
  agent: CompiledAgent;
  conversation: Conversation;
  model: LanguageModel;
  system: string;
  http: ReturnType<typeof createHttpToolExecutor>;
  /** MCP and skills (issue 9): what their tools read, and the MCP tools stored at publish. */
  toolContext: ToolContext;
  discoveredTools: unknown;
  /** The run's tenant part of the tool result cache, for the skills' HTTP executors too. */
  toolCache?: HttpToolExecutorOptions['cache'];
}

/** Context windows by provider, for compaction; configs do not name one yet. */
const CONTEXT_WINDOW = { openai: 128_000, openai_compatible: 32_000, anthropic: 200_000, demo: 32_000 } as const;

export function contextWindowFor(provider: keyof typeof CONTEXT_WINDOW): number {
  return CONTEXT_WINDOW[provider];
}

/**
 * What a run's setup is made from, gathered in the transaction that claims the run: the rows, the
 * compiled agent (or why it could not be compiled) and the sealed secrets it needs. Gathering
 * never throws for a bad config or a missing secret: `setUpRun` throws, and its error is written
 * with the claim's fence.
 */
export interface RunStart {
  rows: RunStartRows;
  compiled: CompiledVersion | { error: unknown } | undefined;
  sealed: SealedSecret[];
  /** The tenant's own model providers (sealed keys), resolved over the operator's as the run service does. */
  providers: ModelProviderRow[];
}

/**
 * Compiles the run's agent version (as the run service does for every start) and reads the sealed secrets it needs (none: no read). A config
 * that does not compile is kept as its error, for `setUpRun` to throw.
 *
 * @example
 * const start = await gatherRunStart(db, run, (await claimRunInTurn(db, job))!.start!, secretBox);
 */
export async function gatherRunStart(
  db: Db,
  run: Pick<Run, 'tenantId'>,
  rows: RunStartRows,
  secretBox: SecretBox | undefined,
): Promise<RunStart> {
  if (!rows.version || !rows.conversation) return { rows, compiled: undefined, sealed: [], providers: [] };
  let compiled: RunStart['compiled'];
  try {
    compiled = compileVersion(rows.version);
  } catch (error) {
    return { rows, compiled: { error }, sealed: [], providers: [] };
  }
  // Without a box the secrets cannot be opened: `setUpRun` says so, nothing to read.
  const names = compiled.agent.requiredSecrets;
  const sealed = secretBox && names.length > 0 ? await getSealedSecrets(db, run.tenantId, names) : [];
  // A tenant without providers of its own (the claim read its row) costs no read for them.
  const providers = rows.tenant?.hasModelProviders === false ? [] : await getSealedModelProviders(db, run.tenantId);
  return { rows, compiled, sealed, providers };
}

/**
 * Builds what a run needs from its start: the compiled agent, the conversation, model and tools.
 * Throws when it cannot run (agent version or conversation gone, config, secrets, model).
 *
 * @example
 * const setup = setUpRun(start, run, models, fetch, secretBox, egress, runToolCache(deps.toolCache, run.tenantId, log));
 */
export function setUpRun(
  start: RunStart,
  run: Run,
  models: ModelProviderSettings,
  fetchImpl: typeof fetch | undefined,
  secretBox: SecretBox | undefined,
  egress: EgressPolicy | undefined,
  toolCache?: HttpToolExecutorOptions['cache'],
): RunSetup & { provider: keyof typeof CONTEXT_WINDOW } {
  const { version, conversation } = start.rows;
  if (!version || !conversation || !start.compiled) {
    throw errors.system('run_target_missing', 'The run’s agent version or conversation no longer exists');
  }
  if ('error' in start.compiled) throw start.compiled.error;
  const { config, agent } = start.compiled;
  const secrets = openSealedSecrets(secretBox, run.tenantId, agent.requiredSecrets, start.sealed);
  const tenantModels = tenantModelSettings(models, secretBox, run.tenantId, start.providers);
  // A test run (issue 22) may play the version on another model (`demo`, or a `provider/model`).
  const testModel = conversation.test?.model;
  const resolved = testModel
    ? resolveModelSpec(testModel, tenantModels, '/model')
    : versionModel(agent, secrets, tenantModels);
  // A tenant's own base URL is reached through the egress guard, as its tools are.
  const base = createModel(
    resolved,
    tenantModels,
    resolved.guarded ? { fetch: egressModelFetch(egress ?? strictEgressPolicy) } : {},
  );
  const model = agent.toolProtocol === 'native' ? base : withToolProtocol(base, agent.toolProtocol);
  // The verified end user's values (`{{user.…}}`) go to the tools only: never the prompt or the transcript.
  const user = agent.endUser ? openEndUser(secretBox, run) : undefined;
  const toolContext: ToolContext = {
    context: systemContext(conversation, config.basic_settings.chatbot_id),
    secrets,
    ...(user ? { user } : {}),
  };
  const http = createHttpToolExecutor({
    agent,
    context: toolContext,
    idempotencyKey: (call) => idempotencyKeyFor(run.id, call.id),
    ...(egress ? { egress } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(toolCache ? { cache: toolCache } : {}),
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
    ...(toolCache ? { toolCache } : {}),
    provider: resolved.provider,
  };
}
