export {
  type Env,
  EnvError,
  egressAllowlistFromEnv,
  envBoolean,
  envEnum,
  envInt,
  envList,
  envString,
  envUrl,
  LOG_LEVELS,
  type ObservabilitySettings,
  observabilityFromEnv,
  secretKeysFromEnv,
} from './env.ts';
export { mcpStdioServersFromEnv, type StdioServerDefinitions } from './mcp-stdio-env.ts';
