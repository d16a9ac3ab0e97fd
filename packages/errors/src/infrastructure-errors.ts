/**
 * Recognises infrastructure faults (a database or Redis that is down, restarting, overloaded or
 * unreachable) in whatever the drivers throw, so they become retryable 503s instead of non-retryable
 * `internal_error`s. Generic over shapes (this package imports no driver): Node socket errors,
 * postgres-js connection errors, SQLSTATEs (postgres-js `PostgresError`, PGlite/pg `DatabaseError`),
 * ioredis/BullMQ connection errors; drizzle's "Failed query" wrapper and any other `cause` chain
 * (and `AggregateError.errors`) are walked, boundedly.
 */

/** Which service a transient fault belongs to. */
export type InfrastructureService = 'database' | 'queue';

/** Node system error codes of a connection that failed, broke or timed out. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  'EADDRNOTAVAIL',
  // DNS answered "try again" (a resolver restarting), not "no such name" (a wrong URL).
  'EAI_AGAIN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
]);

/** postgres-js's own connection error codes (`Errors.connection` in its source). */
const POSTGRES_JS_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

/**
 * SQLSTATEs that mean "try again": the server is shutting down or starting (57P01-57P03), full
 * (53300), or this transaction lost a race (40001, 40P01). Class 08 is added by prefix below.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);

/** 08P01 (protocol_violation) is class 08 but a bug (e.g. wrong parameter count): retrying cannot help. */
const NOT_TRANSIENT_SQLSTATES = new Set(['08P01']);

/** ioredis's messages when a command cannot reach Redis, and Redis's own "not now" replies. */
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /Stream isn't writeable and enableOfflineQueue options is false/,
  /^Reached the max retries per request limit/,
  /^(LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY) /,
];

const REDIS_NAMES = new Set(['MaxRetriesPerRequestError']);

/** Names and messages that say an error came from a database driver or query builder. */
const DATABASE_NAMES = new Set(['PostgresError', 'DatabaseError', 'DrizzleQueryError']);
const DATABASE_MESSAGE = /^Failed query: /;

/** How far the `cause` chain is followed: deep enough for wrappers of wrappers, never unbounded. */
const MAX_LINKS = 32;

/** What one link of a chain says. */
interface Link {
  transient: boolean;
  service: InfrastructureService | 'http' | undefined;
}

/**
 * The service whose outage caused `error`, or undefined when it is not a transient infrastructure
 * fault. A bare socket error with nothing naming its service counts as the database's: in our
 * processes, Redis failures arrive as ioredis's own errors and HTTP clients map theirs, while
 * postgres-js passes socket errors on as they are. A chain through undici's `fetch failed` is an
 * HTTP call's and stays unclassified (its caller maps it).
 *
 * @example
 * classifyInfrastructureError(new Error('Failed query: select 1', { cause: { code: 'ECONNREFUSED' } })); // 'database'
 * classifyInfrastructureError(new Error('Connection is closed.')); // 'queue'
 * classifyInfrastructureError(new Error('duplicate key')); // undefined
 */
export function classifyInfrastructureError(error: unknown): InfrastructureService | undefined {
  let transient = false;
  const services = new Set<Link['service']>();
  for (const value of chain(error)) {
    const link = inspect(value);
    transient ||= link.transient;
    services.add(link.service);
  }
  if (!transient || services.has('http')) return undefined;
  if (services.has('queue')) return 'queue';
  return 'database';
}

/** True when retrying later may succeed because a database or Redis was briefly unavailable. */
export function isTransientInfrastructureError(error: unknown): boolean {
  return classifyInfrastructureError(error) !== undefined;
}

/** The error, its causes and an AggregateError's errors, each once, at most {@link MAX_LINKS}. */
function* chain(error: unknown): Generator<object> {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < MAX_LINKS) {
    const value = pending.shift();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    seen.add(value);
    yield value;
    const cause = read(value, 'cause');
    if (cause !== undefined) pending.push(cause);
    const nested = read(value, 'errors');
    if (Array.isArray(nested)) pending.push(...nested.slice(0, MAX_LINKS));
  }
}

function inspect(value: object): Link {
  const code = stringField(value, 'code');
  const name = stringField(value, 'name');
  const message = stringField(value, 'message') ?? '';
  if (name === 'TypeError' && message === 'fetch failed') return { transient: false, service: 'http' };
  if (REDIS_NAMES.has(name ?? '') || REDIS_MESSAGES.some((pattern) => pattern.test(message))) {
    return { transient: true, service: 'queue' };
  }
  if (code !== undefined && POSTGRES_JS_CODES.has(code)) return { transient: true, service: 'database' };
  if (code !== undefined && isTransientSqlstate(code)) return { transient: true, service: 'database' };
  const fromDatabase = DATABASE_NAMES.has(name ?? '') || DATABASE_MESSAGE.test(message);
  const socket = code !== undefined && SOCKET_CODES.has(code);
  return { transient: socket, service: fromDatabase ? 'database' : undefined };
}

function isTransientSqlstate(code: string): boolean {
  if (!/^[0-9A-Z]{5}$/.test(code) || NOT_TRANSIENT_SQLSTATES.has(code)) return false;
  return TRANSIENT_SQLSTATES.has(code) || code.startsWith('08');
}

/** A property read that survives getters that throw and proxies: errors come from anywhere. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function stringField(value: object, key: string): string | undefined {
  const field = read(value, key);
  return typeof field === 'string' ? field : undefined;
}
