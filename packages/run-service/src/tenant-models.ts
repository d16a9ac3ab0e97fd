// A tenant's own model providers (its settings page) over the operator's: the run service and the
// worker's setup both resolve a run's model through `tenantModelSettings`, so they cannot drift.
import { type Db, getSealedModelProviders, type ModelProviderRow } from '@agentry/db';
import { type ModelProviderSettings, type TenantProvider, withTenantProviders } from '@agentry/models';
import type { SecretBox } from '@agentry/secrets';
import { secretsNotConfigured } from './tenant-secrets.ts';

/**
 * The AAD a provider's key is sealed with: it opens only in its own tenant and provider, and never
 * as a secret (`:` is not allowed in a secret's name, so no secret's context can equal it).
 */
export function modelProviderContext(tenantId: string, provider: string): string {
  return `${tenantId}/model_provider:${provider}`;
}

/**
 * The model settings for a tenant's runs, from its provider rows (`getSealedModelProviders`):
 * its providers over the operator's (`withTenantProviders`). Throws `secrets_not_configured` when
 * a stored key cannot be opened because the platform has no SECRETS_KEY.
 *
 * @example
 * const models = tenantModelSettings(platform, box, tenantId, await getSealedModelProviders(db, tenantId));
 */
export function tenantModelSettings(
  platform: ModelProviderSettings,
  box: SecretBox | undefined,
  tenantId: string,
  rows: readonly ModelProviderRow[],
): ModelProviderSettings {
  if (rows.length === 0) return platform;
  return withTenantProviders(
    platform,
    rows.map((row) => openProvider(box, tenantId, row)),
  );
}

/**
 * `tenantModelSettings` reading the rows itself (the run service, inside its transaction). A
 * tenant known to have no providers (`tenants.has_model_providers`) costs no read.
 *
 * @example
 * const models = await loadTenantModelSettings(tx, { models, secretBox }, tenant);
 */
export async function loadTenantModelSettings(
  db: Db,
  deps: { models: ModelProviderSettings; secretBox?: SecretBox | undefined },
  tenant: string | { id: string; hasModelProviders: boolean },
): Promise<ModelProviderSettings> {
  if (typeof tenant !== 'string' && !tenant.hasModelProviders) return deps.models;
  const tenantId = typeof tenant === 'string' ? tenant : tenant.id;
  return tenantModelSettings(deps.models, deps.secretBox, tenantId, await getSealedModelProviders(db, tenantId));
}

/** A provider row with its key opened. */
export function openProvider(box: SecretBox | undefined, tenantId: string, row: ModelProviderRow): TenantProvider {
  return {
    provider: row.provider,
    apiKey: openKey(box, tenantId, row),
    baseURL: row.baseUrl ?? undefined,
    defaultModel: row.defaultModel ?? undefined,
    isDefault: row.isDefault,
  };
}

function openKey(box: SecretBox | undefined, tenantId: string, row: ModelProviderRow): string | undefined {
  if (row.keyId === null || row.iv === null || row.ciphertext === null || row.tag === null) return undefined;
  if (!box) throw secretsNotConfigured();
  const sealed = { keyId: row.keyId, iv: row.iv, ciphertext: row.ciphertext, tag: row.tag };
  return box.open(sealed, modelProviderContext(tenantId, row.provider));
}
