export {
  type AgentModelChoice,
  type ConfigurableProvider,
  createModel,
  type ModelProviderSettings,
  type ProviderCredentials,
  type ProviderName,
  type ResolvedModel,
  resolveModel,
  usesDemoModel,
} from './model-settings.ts';
export { modelSettingsFromEnv } from './model-settings-env.ts';
export { listProviderModels, type ProviderModelList, SUGGESTED_MODELS } from './provider-models.ts';
export { type TenantProvider, withTenantProviders } from './tenant-model-settings.ts';
