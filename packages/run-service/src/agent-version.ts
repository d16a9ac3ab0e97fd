// An agent version made ready to run: checked once per version, compiled once per hash, its
// secrets opened and its model resolved. Every place that starts or sets up a run goes through it.
import { type AgentConfig, type CompiledAgent, compileAgent, loadAgentConfig } from '@agentry/config';
import { type AgentVersion, agentVersionKey, type Db } from '@agentry/db';
import { type ModelProviderSettings, type ResolvedModel, resolveModel } from '@agentry/models';
import type { SecretBox } from '@agentry/secrets';
import { loadTenantModelSettings } from './tenant-models.ts';
import { openSecrets } from './tenant-secrets.ts';

/** A stored version's config, loaded and compiled. */
export interface CompiledVersion {
  config: AgentConfig;
  agent: CompiledAgent;
}

/** A version ready to run: compiled, with the secrets it names opened and its model resolved. */
export interface PreparedVersion extends CompiledVersion {
  secrets: Record<string, string>;
  model: ResolvedModel;
}

/**
 * A stored version's config, loaded (checked once per version: the cache key is the version's id
 * and content hash) and compiled (once per content hash). Throws the loader's 422 for a config
 * that no longer passes.
 *
 * @example
 * const { config, agent } = compileVersion(version);
 */
export function compileVersion(version: Pick<AgentVersion, 'id' | 'contentHash' | 'config'>): CompiledVersion {
  const { config, hash } = loadAgentConfig(version.config, { cacheKey: agentVersionKey(version) });
  return { config, agent: compileAgent(config, hash) };
}

/**
 * The model an agent runs on: its config's `model` block (its own key: a tenant secret it names)
 * over `models`, the tenant's providers over the operator's (`tenantModelSettings`). Throws `model_not_configured` when neither provides one.
 *
 * @example
 * const model = versionModel(agent, secrets, settings);
 */
export function versionModel(
  agent: CompiledAgent,
  secrets: Record<string, string>,
  models: ModelProviderSettings,
): ResolvedModel {
  const apiKey = agent.model.apiKeySecret ? secrets[agent.model.apiKeySecret] : undefined;
  return resolveModel({ ...agent.model, ...(apiKey ? { apiKey } : {}) }, models);
}

/**
 * Prepares a version to run, or throws why it cannot (config, `missing_secret`,
 * `secrets_not_configured`, `model_not_configured`) before anything is written.
 *
 * @example
 * const prepared = await prepareVersion(tx, { secretBox, models }, tenant, version);
 */
export async function prepareVersion(
  db: Db,
  deps: { secretBox?: SecretBox | undefined; models: ModelProviderSettings },
  tenant: string | { id: string; hasModelProviders: boolean },
  version: Pick<AgentVersion, 'id' | 'contentHash' | 'config'>,
): Promise<PreparedVersion> {
  const tenantId = typeof tenant === 'string' ? tenant : tenant.id;
  const compiled = compileVersion(version);
  const secrets = await openSecrets(db, deps.secretBox, tenantId, compiled.agent.requiredSecrets);
  const models = await loadTenantModelSettings(db, deps, tenant);
  return { ...compiled, secrets, model: versionModel(compiled.agent, secrets, models) };
}
