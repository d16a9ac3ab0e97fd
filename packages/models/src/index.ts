export {
  type EmbeddingModelSpec,
  type EmbeddingProviderName,
  LOCAL_EMBEDDING_SPEC,
  OPENAI_EMBEDDING_SPEC,
  parseEmbeddingModelSpec,
} from './embedding-model-spec.ts';
export { defaultEmbeddingModelSpec, type EmbeddingModelOptions, embeddingModelFor } from './embedding-models.ts';
export {
  type AgentModelChoice,
  type ConfigurableProvider,
  createModel,
  type ModelPrice,
  type ModelProviderSettings,
  type ProviderCredentials,
  type ProviderName,
  type ResolvedModel,
  resolveModel,
  usesDemoModel,
} from './model-settings.ts';
export { modelSettingsFromEnv } from './model-settings-env.ts';
export { modelCost, resolveModelSpec } from './model-spec.ts';
export { listProviderModels, type ProviderModelList, SUGGESTED_MODELS } from './provider-models.ts';
export { type TenantProvider, withTenantProviders } from './tenant-model-settings.ts';
