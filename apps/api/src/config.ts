import { resolve } from 'node:path';
import { type TestRunSettings, testRunSettingsFromEnv } from '@agentry/agent-tests';
import {
  type Env,
  EnvError,
  egressAllowlistFromEnv,
  envBoolean,
  envEnum,
  envInt,
  envString,
  envUrl,
  LOG_LEVELS,
  mcpStdioServersFromEnv,
  observabilityFromEnv,
  type StdioServerDefinitions,
  secretKeysFromEnv,
} from '@agentry/env';
import { type KnowledgeSettings, knowledgeSettingsFromEnv } from '@agentry/knowledge';
import { type ModelProviderSettings, modelSettingsFromEnv } from '@agentry/models';
import {
  type SweeperSettings,
  sweeperSettingsFromEnv,
  type ToolCacheSettings,
  toolCacheSettingsFromEnv,
} from '@agentry/runner';
import { type WebhookSettings, webhookSettingsFromEnv } from '@agentry/webhooks';
import type { AdmissionOptions } from './http/admission.ts';
import { DEFAULT_IDEMPOTENCY_LEASE_MS } from './http/idempotency.ts';
import type { MailSettings } from './mail/mailer.ts';

/** Everything the API process needs, read once from the environment. */
export interface ApiConfig {
  /** `embedded`: API and worker in one process (PGlite and in-process jobs unless URLs are set). */
  mode: 'embedded' | 'api';
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  /** DATABASE_PREPARED_STATEMENTS (default true): false behind PgBouncer in transaction mode before 1.21. */
  databasePreparedStatements: boolean;
  /**
   * API_KEY_CACHE_TTL_MS (default 60 s; 0 = no cache): how long a key lookup is remembered at most.
   * Revocations do not wait for it: database notifications drop a changed tenant's entries at once.
   */
  apiKeyCacheTtlMs: number;
  redisUrl?: string;
  queuePrefix: string;
  platformAdminToken?: string;
  models: ModelProviderSettings;
  /** From SECRETS_KEY (+ rotation); the embedded mode makes one under DATA_DIR when unset. */
  secretKeys?: { keys: Record<string, Buffer>; currentKeyId: string };
  egressAllowlist: string[];
  logLevel: (typeof LOG_LEVELS)[number];
  /** How long `POST …/messages` waits for the run before answering 202. */
  runWaitMs: number;
  /** IDEMPOTENCY_LEASE_MS (default 15 s, renewed while the request works): after it, a dead request's key is taken over. */
  idempotencyLeaseMs: number;
  /** Event streams (SSE) one API process keeps open at most; past it `503 too_many_streams`. */
  maxEventStreams: number;
  /** Event streams one visitor (end user, or publishable key + IP) keeps open across processes; past it `429 too_many_streams_for_visitor`. */
  maxEventStreamsPerVisitor: number;
  workerConcurrency: number;
  /** API requests per minute per tenant (default for tenants without their own) and per key. */
  rateLimitPerMinute: number;
  /** API requests per minute per end user (verified end-user token, or publishable key + client IP). */
  rateLimitPerEndUserPerMinute: number;
  /** Proxies in front of the API whose `X-Forwarded-For` entries are trusted for the client IP. */
  trustedProxies: number;
  /** Runs of one tenant executing at once (embedded worker). */
  tenantConcurrency: number;
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** OTLP/HTTP endpoint for traces; unset = no OpenTelemetry SDK. */
  otlpEndpoint?: string;
  /** MCP_STDIO_SERVERS: the operator's stdio MCP servers tenant configs may name; unset = stdio refused. */
  mcpStdioServers?: StdioServerDefinitions;
  /** WEBHOOK_*: the embedded webhook dispatcher's sending and retries. */
  webhooks: WebhookSettings;
  /** SWEEP_INTERVAL_MS, WAITING_RUN_TTL_SECONDS: the embedded stuck-run sweeper (waiting runs expire). */
  sweeper: SweeperSettings;
  /** KNOWLEDGE_*: knowledge bases' limits and vector search (`KNOWLEDGE_VECTOR_SEARCH`). */
  knowledge: KnowledgeSettings;
  /** JUDGE_MODEL, TEST_RUNS_PER_TENANT, TEST_RUN_CONCURRENCY, TEST_TURN_TIMEOUT_MS: test runs (issue 22). */
  tests: TestRunSettings;
  /** TOOL_CACHE_*: bounds of the cache of tools with `cache` (in Redis with REDIS_URL, else in this process). */
  toolCache: ToolCacheSettings;
  /** ADMISSION_*: /v1 requests doing database work at once (0 = no bound), waiting for a turn, how long. */
  admission: AdmissionOptions;
  /** SMTP_URL, MAIL_FROM, PUBLIC_URL, SHOW_INVITATION_LINKS: how account mail (invitations, resets) goes out. */
  mail: MailSettings;
}

/** Loopback addresses, as allowlist entries. */
const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/**
 * The only place the API reads `process.env`. Throws `EnvError` naming the variable on a bad value.
 *
 * @example
 * const config = readApiConfig(process.env, process.argv.includes('--embedded'));
 */
export function readApiConfig(env: Env, embedded: boolean): ApiConfig {
  const databaseUrl = envUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = envUrl(env, 'REDIS_URL', ['redis:', 'rediss:']);
  if (!embedded && (!databaseUrl || !redisUrl)) {
    throw new EnvError(
      databaseUrl ? 'REDIS_URL' : 'DATABASE_URL',
      'the separate API process needs both DATABASE_URL and REDIS_URL (use `pnpm start` for the embedded mode)',
    );
  }
  const secretKeys = secretKeysFromEnv(env);
  const token = envString(env, 'PLATFORM_ADMIN_TOKEN');
  if (token !== undefined && token.length < 16)
    throw new EnvError('PLATFORM_ADMIN_TOKEN', 'use at least 16 characters');
  const mcpStdioServers = mcpStdioServersFromEnv(env);
  const runWaitMs = envInt(env, 'RUN_WAIT_MS', 60_000, [0, 600_000]);
  return {
    mode: embedded ? 'embedded' : 'api',
    port: envInt(env, 'PORT', 3000, [0, 65535]),
    host: envString(env, 'HOST') ?? '127.0.0.1',
    dataDir: resolve(envString(env, 'DATA_DIR') ?? '.data'),
    ...(databaseUrl ? { databaseUrl } : {}),
    databasePreparedStatements: envBoolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    apiKeyCacheTtlMs: envInt(env, 'API_KEY_CACHE_TTL_MS', 60_000, [0, 3_600_000]),
    ...(redisUrl ? { redisUrl } : {}),
    queuePrefix: envString(env, 'QUEUE_PREFIX') ?? 'agentry',
    ...(token ? { platformAdminToken: token } : {}),
    // The embedded mode answers with the built-in demo model while no model is configured.
    models: {
      ...modelSettingsFromEnv(env),
      ...(embedded && envBoolean(env, 'DEMO_MODEL', true) ? { demo: true } : {}),
    },
    ...(secretKeys ? { secretKeys } : {}),
    // The embedded mode is one machine's install: its tools may reach that machine (the demo
    // endpoint, a tool server in development) unless EGRESS_ALLOW_LOOPBACK=false.
    egressAllowlist: [
      ...egressAllowlistFromEnv(env),
      ...(embedded && envBoolean(env, 'EGRESS_ALLOW_LOOPBACK', true) ? LOOPBACK : []),
    ],
    logLevel: envEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    runWaitMs,
    idempotencyLeaseMs: envInt(env, 'IDEMPOTENCY_LEASE_MS', DEFAULT_IDEMPOTENCY_LEASE_MS, [1000, 3_600_000]),
    maxEventStreams: envInt(env, 'MAX_EVENT_STREAMS', 10_000, [1, 1_000_000]),
    maxEventStreamsPerVisitor: envInt(env, 'MAX_EVENT_STREAMS_PER_VISITOR', 5, [1, 10_000]),
    workerConcurrency: envInt(env, 'WORKER_CONCURRENCY', 8, [1, 1000]),
    tenantConcurrency: envInt(env, 'TENANT_CONCURRENCY', 4, [1, 10_000]),
    rateLimitPerMinute: envInt(env, 'RATE_LIMIT_PER_MINUTE', 1200, [1, 10_000_000]),
    rateLimitPerEndUserPerMinute: envInt(env, 'RATE_LIMIT_PER_END_USER_PER_MINUTE', 120, [1, 10_000_000]),
    trustedProxies: envInt(env, 'TRUSTED_PROXIES', 0, [0, 10]),
    ...observabilityFromEnv(env),
    ...(mcpStdioServers ? { mcpStdioServers } : {}),
    webhooks: webhookSettingsFromEnv(env),
    admission: admissionFromEnv(env, databaseUrl === undefined),
    mail: mailFromEnv(env, embedded),
    sweeper: sweeperSettingsFromEnv(env),
    knowledge: knowledgeSettingsFromEnv(env),
    tests: testRunSettingsFromEnv(env),
    toolCache: toolCacheSettingsFromEnv(env),
  };
}

/**
 * PGlite runs every query on the API's own thread, one at a time: a few requests at once keep it
 * busy, and more only queue in front of it with the event loop blocked; every queued run is more
 * of its work later. Postgres has a pool (10 connections) and requests spend most of their time
 * outside it, so its bound is wider: it only keeps a burst from queueing for seconds on the pool.
 */
function admissionFromEnv(env: Env, pglite: boolean): AdmissionOptions {
  return {
    maxInFlight: envInt(env, 'ADMISSION_MAX_IN_FLIGHT', pglite ? 4 : 64, [0, 100_000]),
    maxQueued: envInt(env, 'ADMISSION_MAX_QUEUED', pglite ? 32 : 512, [0, 1_000_000]),
    maxWaitMs: envInt(env, 'ADMISSION_MAX_WAIT_MS', pglite ? 2000 : 5000, [1, 600_000]),
    // Counting BullMQ's jobs is a Redis round trip per message: bounded only where asked for.
    maxQueuedRuns: envInt(env, 'ADMISSION_MAX_QUEUED_RUNS', pglite ? 32 : 0, [0, 10_000_000]),
  };
}

/**
 * Account mail. With SMTP_URL, invitation, confirmation and reset links go by mail only, built on
 * PUBLIC_URL (never on the request's Host, which a client chooses). Without it nothing can prove a
 * mailbox: SHOW_INVITATION_LINKS (default on in the embedded mode only) lets inviters see the link,
 * and the accounts it creates stay unverified; off, inviting answers 503 `mail_not_configured`.
 */
function mailFromEnv(env: Env, embedded: boolean): MailSettings {
  const smtpUrl = envUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const from = envString(env, 'MAIL_FROM');
  const publicUrl = envUrl(env, 'PUBLIC_URL', ['http:', 'https:']);
  const showInvitationLinks = envBoolean(env, 'SHOW_INVITATION_LINKS', embedded && !smtpUrl);
  if (!smtpUrl) return { showInvitationLinks };
  if (!from)
    throw new EnvError('MAIL_FROM', 'set the sender address (e.g. "Agentry <no-reply@example.com>") with SMTP_URL');
  if (!publicUrl)
    throw new EnvError('PUBLIC_URL', 'set the address people reach the dashboard at, for the links in mails');
  if (showInvitationLinks) {
    throw new EnvError('SHOW_INVITATION_LINKS', 'with SMTP_URL set, invitations go by mail only: unset it');
  }
  return { smtp: { url: smtpUrl, from, publicUrl: publicUrl.replace(/\/+$/, '') }, showInvitationLinks: false };
}
