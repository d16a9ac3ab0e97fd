import { invalidAllowlistEntries } from '@agentry/http-tools';
import { parseSecretKey } from '@agentry/secrets';

/** A bad environment value: the message names the variable and what is expected. */
export class EnvError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid environment variable ${variable}: ${problem}`);
    this.name = 'EnvError';
  }
}

export type Env = Record<string, string | undefined>;

/** Reads a non-empty string or undefined. */
export function envString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function envUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const value = envString(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EnvError(name, `"${value}" is not a URL`);
  }
  if (!protocols.includes(url.protocol)) throw new EnvError(name, `expected a ${protocols.join(' or ')} URL`);
  return value;
}

export function envInt(env: Env, name: string, fallback: number, range: [number, number]): number {
  const value = envString(env, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < range[0] || n > range[1]) {
    throw new EnvError(name, `expected a whole number from ${range[0]} to ${range[1]}, got "${value}"`);
  }
  return n;
}

export function envEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = envString(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new EnvError(name, `expected one of ${allowed.join(', ')}`);
  return value as T;
}

/** `true`/`false` (also `1`/`0`, `yes`/`no`), or `fallback` when unset. */
export function envBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = envString(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new EnvError(name, `expected true or false, got "${value}"`);
}

export function envList(env: Env, name: string): string[] {
  return (envString(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The secret-encryption keys: `SECRETS_KEY` (32 bytes, base64 or hex) under id `SECRETS_KEY_ID`
 * (default `k1`), plus `SECRETS_OLD_KEYS` (`id:key,id:key`) still readable after a rotation.
 * Undefined when `SECRETS_KEY` is not set.
 */
export function secretKeysFromEnv(env: Env): { keys: Record<string, Buffer>; currentKeyId: string } | undefined {
  const current = envString(env, 'SECRETS_KEY');
  if (!current) return undefined;
  const currentKeyId = envString(env, 'SECRETS_KEY_ID') ?? 'k1';
  const keys: Record<string, Buffer> = {};
  for (const entry of envList(env, 'SECRETS_OLD_KEYS')) {
    const [id, value] = entry.split(':', 2);
    if (!id || !value) throw new EnvError('SECRETS_OLD_KEYS', 'expected comma-separated id:key pairs');
    keys[id] = parseKey('SECRETS_OLD_KEYS', value);
  }
  keys[currentKeyId] = parseKey('SECRETS_KEY', current);
  return { keys, currentKeyId };
}

function parseKey(variable: string, value: string): Buffer {
  try {
    return parseSecretKey(value);
  } catch (error) {
    throw new EnvError(variable, (error as Error).message);
  }
}

/** `EGRESS_ALLOWLIST`: hosts, `*.domain` wildcards and CIDRs HTTP tools may reach even when private. */
export function egressAllowlistFromEnv(env: Env): string[] {
  const list = envList(env, 'EGRESS_ALLOWLIST');
  const invalid = invalidAllowlistEntries(list);
  if (invalid.length > 0) throw new EnvError('EGRESS_ALLOWLIST', `not a host, *.domain or CIDR: ${invalid.join(', ')}`);
  return list;
}

/** Where a process's metrics and traces go: `METRICS_TOKEN` (16+ characters) and `OTEL_EXPORTER_OTLP_ENDPOINT`. */
export interface ObservabilitySettings {
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** OTLP/HTTP endpoint for traces; unset = no OpenTelemetry SDK. */
  otlpEndpoint?: string;
}

/**
 * `METRICS_TOKEN` and `OTEL_EXPORTER_OTLP_ENDPOINT`, read alike by the API and the worker; throws
 * `EnvError` for a token shorter than 16 characters or an endpoint that is not http(s).
 *
 * @example
 * const { metricsToken, otlpEndpoint } = observabilityFromEnv(process.env);
 */
export function observabilityFromEnv(env: Env): ObservabilitySettings {
  const metricsToken = envString(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    throw new EnvError('METRICS_TOKEN', 'use at least 16 characters');
  const otlpEndpoint = envUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  return { ...(metricsToken ? { metricsToken } : {}), ...(otlpEndpoint ? { otlpEndpoint } : {}) };
}
