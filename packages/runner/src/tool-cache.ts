import type { Env } from '@agentry/env';
import { envInt } from '@agentry/env';
import type { HttpToolExecutorOptions, ToolResultCache } from '@agentry/http-tools';
import type { RunLog } from './processor-context.ts';

/** Bounds of the tool result cache (`cache: { ttl }` on a tool), from the environment. */
export interface ToolCacheSettings {
  /** TOOL_CACHE_MAX_ENTRY_BYTES (default 256 KiB): larger responses are not stored. */
  maxEntryBytes: number;
  /** TOOL_CACHE_MAX_ENTRIES_PER_TENANT (default 1000): storing one more drops the one that expires first. */
  maxEntriesPerTenant: number;
  /** TOOL_CACHE_MEMORY_MAX_BYTES (default 32 MiB): the embedded mode's in-process cache in all. */
  memoryMaxBytes: number;
}

/**
 * Reads the tool cache's bounds; called by each app's `config.ts` (the only readers of the env).
 *
 * @example
 * const toolCache = toolCacheSettingsFromEnv(process.env); // { maxEntryBytes: 262144, … }
 */
export function toolCacheSettingsFromEnv(env: Env): ToolCacheSettings {
  return {
    maxEntryBytes: envInt(env, 'TOOL_CACHE_MAX_ENTRY_BYTES', 256 * 1024, [1024, 4 * 1024 * 1024]),
    maxEntriesPerTenant: envInt(env, 'TOOL_CACHE_MAX_ENTRIES_PER_TENANT', 1000, [1, 1_000_000]),
    memoryMaxBytes: envInt(env, 'TOOL_CACHE_MEMORY_MAX_BYTES', 32 * 1024 * 1024, [1024 * 1024, 4 * 1024 * 1024 * 1024]),
  };
}

/**
 * The HTTP executors' cache option for one run: the tenant's part of the process's cache, with
 * cache errors logged at warn (the call goes to the endpoint as without a cache).
 */
export function runToolCache(
  store: ToolResultCache | undefined,
  tenantId: string,
  log: RunLog | undefined,
): HttpToolExecutorOptions['cache'] {
  if (!store) return undefined;
  return {
    store,
    tenantId,
    onError: (error) => log?.('warn', 'tool result cache unavailable; calling the endpoint', { err: error, tenantId }),
  };
}
