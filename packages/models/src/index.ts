export {
  type AgentModelChoice,
  createModel,
  type ModelProviderSettings,
  type ProviderName,
  type ResolvedModel,
  resolveModel,
  usesDemoModel,
} from './model-settings.ts';
export { modelSettingsFromEnv } from './model-settings-env.ts';
