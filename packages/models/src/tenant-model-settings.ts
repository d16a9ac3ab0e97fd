import type { ConfigurableProvider, ModelProviderSettings } from './model-settings.ts';

/** A tenant's own provider (its settings page), its key already opened. */
export interface TenantProvider {
  provider: ConfigurableProvider;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  /** The model an agent of this tenant that names none runs on with this provider. */
  defaultModel?: string | undefined;
  /** The tenant's default provider (for agents that name none). */
  isDefault?: boolean;
}

/**
 * The settings a tenant's runs resolve their model with: the tenant's own providers over the
 * operator's (a provider the tenant configured replaces the operator's credentials for it whole,
 * so a tenant's key never goes to the operator's base URL), the tenant's default provider and
 * models first, and no demo model once the tenant has a provider. An agent's own `model` block
 * still wins over all of it (`resolveModel`).
 *
 * @example
 * const settings = withTenantProviders(platform, [{ provider: 'anthropic', apiKey: 'sk-ant-…', isDefault: true }]);
 * resolveModel({}, settings).provider; // 'anthropic'
 */
export function withTenantProviders(
  platform: ModelProviderSettings,
  providers: readonly TenantProvider[],
): ModelProviderSettings {
  if (providers.length === 0) return platform;
  const merged: ModelProviderSettings = { ...platform, defaultModels: { ...platform.defaultModels }, demo: false };
  delete merged.defaultProvider;
  for (const p of providers) {
    merged[p.provider] = {
      ...(p.apiKey ? { apiKey: p.apiKey } : {}),
      ...(p.baseURL ? { baseURL: p.baseURL, tenantChosen: true } : {}),
    };
    if (p.defaultModel) merged.defaultModels![p.provider] = p.defaultModel;
    if (p.isDefault) merged.defaultProvider = p.provider;
  }
  return merged;
}
