// Every table in one file (~480 lines): drizzle-kit generates the migrations from this one schema
// (`drizzle.config.ts`), and the tables' foreign keys and row-level policies read best side by side.
import type { RunStatus } from '@agentry/contract';
import type { ContentPart, Usage } from '@agentry/llm';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  json,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { jsonb, orderedJson } from './storable-jsonb.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** A business using the platform. Every other tenant-owned row carries its id. */
export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status').$type<'active' | 'suspended'>().notNull().default('active'),
  /** Hosts/CIDRs this tenant's tools may reach even when private; set by the platform operator only. */
  egressAllowlist: jsonb('egress_allowlist').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  /** Runs per UTC day; null = unlimited. */
  dailyRunLimit: integer('daily_run_limit'),
  /** Model tokens (input + output) per UTC day; null = unlimited. */
  dailyTokenLimit: integer('daily_token_limit'),
  /** API requests per minute across the tenant's keys; null = the platform default. */
  requestsPerMinute: integer('requests_per_minute'),
  /**
   * Whether the tenant configured model providers of its own (kept with `model_providers`): a run
   * start reads those rows only then, so tenants without pay no round trip for them.
   */
  hasModelProviders: boolean('has_model_providers').notNull().default(false),
  /** When people answer handoffs (an IANA time zone and weekly intervals); null = any time. */
  businessHours: jsonb('business_hours').$type<BusinessHours>(),
  createdAt: createdAt(),
});

/**
 * A tenant's business hours: weekly intervals (`day` 0 = Sunday … 6, `HH:MM` local times, `end`
 * after `start`, `24:00` for midnight) in an IANA time zone. No intervals = never open.
 */
export interface BusinessHours {
  time_zone: string;
  intervals: Array<{ day: number; start: string; end: string }>;
}

/**
 * Who answers a conversation: the model (`bot`), nobody yet (`pending_human`: a person was asked
 * for), a member (`human`, `assigned_to`), or nobody any more (`resolved`; the next visitor
 * message gives it back to the model).
 */
export type ConversationMode = 'bot' | 'pending_human' | 'human' | 'resolved';

/** Why and how a conversation was handed to people; kept after it is released (the last handoff). */
export interface HandoffInfo {
  /** `model` (the handoff_to_human tool), `flow` (a flow's handoff step), `visitor`, `member`, `api`. */
  source: 'model' | 'flow' | 'visitor' | 'member' | 'api';
  reason: string;
  /** The model's summary of the conversation so far, for the person taking it over. */
  summary: string;
  requested_at: string;
}

/** API keys, stored as a SHA-256 hash (keys are 256-bit random, so a slow hash adds nothing). */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'secret' | 'publishable'>().notNull(),
    /** A label for people ("widget on shop.example.com"). */
    name: text('name'),
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    /**
     * Publishable keys only: the key itself, so owners and editors can see it again. It is no
     * secret (every page that embeds the widget shows it). Secret keys keep only their hash, and
     * publishable keys made before migration 0020 have null here.
     */
    publishableKey: text('publishable_key'),
    scopes: jsonb('scopes').$type<string[]>().notNull().default(sql`'["*"]'::jsonb`),
    /** Publishable keys: the agents they may chat with. */
    allowedAgents: jsonb('allowed_agents').$type<string[]>(),
    /** Publishable keys: page origins allowed to use them (`https://*.example.com` wildcards). */
    allowedOrigins: jsonb('allowed_origins').$type<string[]>(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('api_keys_key_hash_idx').on(t.keyHash), index('api_keys_tenant_idx').on(t.tenantId)],
);

export const agents = pgTable(
  'agents',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    publishedVersion: integer('published_version'),
    latestVersion: integer('latest_version').notNull().default(0),
    /** Issue 22: publishing needs a passing test run of the version (owners may force, audited). */
    requirePassingTests: boolean('require_passing_tests').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('agents_tenant_idx').on(t.tenantId)],
);

/** Immutable snapshots of an agent's config. */
export const agentVersions = pgTable(
  'agent_versions',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    /**
     * `json`, not `jsonb`: kept as uploaded, so parameters, headers and body fields come back in the
     * order the tenant entered them (jsonb sorts object keys). The content hash does not depend on it.
     */
    config: orderedJson('config').$type<Record<string, unknown>>().notNull(),
    contentHash: text('content_hash').notNull(),
    createdAt: createdAt(),
    /** When the version last went live (publish or roll back); null if it never did. */
    publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
    /** MCP tools discovered when the version was created (`@agentry/mcp` DiscoveredTools); runs offer only these. */
    discoveredTools: jsonb('discovered_tools').$type<Record<string, unknown>>(),
  },
  (t) => [uniqueIndex('agent_versions_agent_version_idx').on(t.agentId, t.version)],
);

/** What makes a conversation a test's (see `conversations.test`). */
export interface ConversationTest {
  testRunId: string;
  /** The case's fixtures (`ToolFixture[]` of the contract). */
  fixtures: unknown[];
  /** `demo` or a `provider/model` spec replacing the version's model; absent: the version's own. */
  model?: string;
}

export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** Pinned version; null follows the agent's published version. */
    agentVersion: integer('agent_version'),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** Who answers the visitor (see ConversationMode); only `bot` starts runs. */
    mode: text('mode').$type<ConversationMode>().notNull().default('bot'),
    /** The member (user id) holding the conversation in mode `human`. No foreign key: kept as history. */
    assignedTo: uuid('assigned_to'),
    /** The last handoff request (reason, the model's summary, when). */
    handoff: jsonb('handoff').$type<HandoffInfo>(),
    /** When `mode` last changed: a waiting conversation's waiting time starts here. */
    modeChangedAt: timestamp('mode_changed_at', { withTimezone: true, mode: 'date' }),
    /**
     * A test conversation (issue 22): its tools answer from fixtures (nothing is sent), a handoff is
     * recorded but reaches nobody, and it is kept out of the tenant's lists, inbox and webhooks.
     */
    test: jsonb('test').$type<ConversationTest>(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('conversations_tenant_idx').on(t.tenantId, t.createdAt),
    // A test run's conversations (issue 22), to remove them with it.
    index('conversations_test_run_idx').on(sql`(${t.test}->>'testRunId')`).where(sql`${t.test} is not null`),
    // The inbox: the few conversations people hold or wait for, however many the tenant has.
    index('conversations_inbox_idx')
      .on(t.tenantId, t.modeChangedAt)
      .where(sql`${t.mode} in ('pending_human', 'human')`),
  ],
);

/** Who did something to a conversation's mode or notes. */
export type ConversationActorType = 'user' | 'api_key' | 'model' | 'flow' | 'visitor' | 'system';

/**
 * A conversation's handoff history and internal notes: one row per mode change (`transition`:
 * from, to, who, when, the note given) and per note people wrote (`note`: never shown to visitors
 * nor the model).
 */
export const conversationEvents = pgTable(
  'conversation_events',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'transition' | 'note'>().notNull(),
    fromMode: text('from_mode').$type<ConversationMode>(),
    toMode: text('to_mode').$type<ConversationMode>(),
    actorType: text('actor_type').$type<ConversationActorType>().notNull(),
    /** The user's or API key's id (no foreign key: the record outlives them). */
    actorId: text('actor_id'),
    /** The member's display name at the time (or the key's prefix). */
    actorName: text('actor_name'),
    /** For an assignment: the member it went to. */
    assignedTo: uuid('assigned_to'),
    note: text('note'),
    createdAt: createdAt(),
  },
  (t) => [index('conversation_events_conversation_idx').on(t.conversationId, t.createdAt)],
);

/** A run's status and the final ones live in the API contract (`@agentry/contract`). */
export { FINAL_RUN_STATUSES, type RunStatus } from '@agentry/contract';

/** One trace entry per model step. */
export interface RunStep {
  index: number;
  modelLatencyMs: number;
  usage: Usage;
  finishReason: string;
  /** Who answered the step (`demo`: the built-in demo model). */
  provider?: string;
  model?: string;
  toolCalls: Array<{
    id: string;
    name: string;
    durationMs: number;
    isError: boolean;
    errorCode?: string;
    /** A stored response of a tool with `cache`. */
    cached?: true;
  }>;
}

export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    agentVersion: integer('agent_version').notNull(),
    status: text('status').$type<RunStatus>().notNull().default('queued'),
    /** The user message that started this run. */
    inputMessageId: uuid('input_message_id'),
    steps: jsonb('steps').$type<RunStep[]>().notNull().default(sql`'[]'::jsonb`),
    usage: jsonb('usage')
      .$type<Usage>()
      .notNull()
      .default(sql`'{"inputTokens":0,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0}'::jsonb`),
    toolCallCount: integer('tool_call_count').notNull().default(0),
    error: jsonb('error').$type<{ code: string; message: string; category: string; retryable: boolean }>(),
    traceId: text('trace_id').notNull(),
    /**
     * Fencing number: each attempt takes the next one, and every write of an attempt requires it
     * to still be current, so a worker that lost its job lock cannot write.
     */
    fence: integer('fence').notNull().default(0),
    /** Last sign of life of the attempt working on the run (stuck-run sweeper); for a waiting run, when it parked. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true, mode: 'date' }),
    /** The user's message when it waits behind another run (enqueue policy); written to the transcript at start. */
    pendingInput: jsonb('pending_input').$type<ContentPart[]>(),
    /**
     * The verified end user's values for `{{user.…}}` (the declared claims, the token when forwarded,
     * its `exp`), sealed with the platform's SecretBox (AES-256-GCM, bound to tenant and conversation)
     * as JSON text; null without a verified end user or when the agent reads none, and cleared by the
     * run's final status. Never shown.
     */
    endUser: text('end_user'),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('runs_conversation_idx').on(t.conversationId, t.createdAt),
    index('runs_tenant_idx').on(t.tenantId, t.createdAt),
    // Only active runs, by status: heartbeats change often and must not churn an index.
    index('runs_active_idx').on(t.status).where(sql`${t.status} in ('queued', 'running', 'waiting')`),
    // A conversation's active runs (its turn, the next queued run, the busy check): a handful of
    // entries per conversation, however many runs its tenant has. Queries must name the statuses
    // as literals (`isActiveRun` in run-attempts.ts), or a generic plan cannot use a partial index.
    index('runs_conversation_active_idx')
      .on(t.conversationId, t.createdAt, t.id)
      .where(sql`${t.status} in ('queued', 'running', 'waiting')`),
  ],
);

/**
 * Every tool call's side effect, recorded as started before the request is sent and completed
 * after, so a resumed run never repeats one it already made.
 */
export const toolCalls = pgTable(
  'tool_calls',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    toolCallId: text('tool_call_id').notNull(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** `approved` / `declined`: a person answered an approval; `completed` also holds client tool results. */
    status: text('status').$type<'started' | 'completed' | 'approved' | 'declined'>().notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    output: jsonb('output'),
    isError: boolean('is_error'),
    errorCode: text('error_code'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [primaryKey({ columns: [t.runId, t.toolCallId] })],
);

export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    runId: uuid('run_id'),
    /** Position in the conversation, 1-based, gap-free. */
    seq: integer('seq').notNull(),
    role: text('role').$type<'user' | 'assistant' | 'tool'>().notNull(),
    content: jsonb('content').$type<ContentPart[]>().notNull(),
    /**
     * Written by a person, not the model: `human` (a member's reply to the visitor, role
     * `assistant`) or `note` (a member's note for the model when releasing, never shown to the
     * visitor). Null for the model's and the visitor's messages.
     */
    author: jsonb('author').$type<MessageAuthor>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('messages_conversation_seq_idx').on(t.conversationId, t.seq)],
);

/** A person who wrote a message (see `messages.author`). */
export interface MessageAuthor {
  type: 'human' | 'note';
  /** The member's user id, or null when an API key wrote it. */
  user_id: string | null;
  /** The display name shown to the visitor (`human`) and to the model. */
  name: string;
}

/** Tenant secrets, sealed with AES-256-GCM (the key lives outside the database). Never returned by the API. */
export const secrets = pgTable(
  'secrets',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyId: text('key_id').notNull(),
    iv: text('iv').notNull(),
    ciphertext: text('ciphertext').notNull(),
    tag: text('tag').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

/** A provider a tenant configures on its own (its settings page), instead of the operator's environment. */
export type ModelProviderKind = 'openai' | 'anthropic' | 'openai_compatible';

/**
 * A tenant's own model provider: its API key sealed like a secret (AES-256-GCM, never returned),
 * its base URL, the model its agents default to, whether it is the tenant's default provider, and
 * the models its last connection test listed. One row per provider kind.
 */
export const modelProviders = pgTable(
  'model_providers',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    provider: text('provider').$type<ModelProviderKind>().notNull(),
    baseUrl: text('base_url'),
    /** The sealed API key; all four null when the provider needs none (a local server). */
    keyId: text('key_id'),
    iv: text('iv'),
    ciphertext: text('ciphertext'),
    tag: text('tag'),
    defaultModel: text('default_model'),
    isDefault: boolean('is_default').notNull().default(false),
    /** What the last successful connection test listed, offered by the agent editor. */
    models: jsonb('models').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.provider] }),
    uniqueIndex('model_providers_one_default_idx').on(t.tenantId).where(sql`${t.isDefault}`),
  ],
);

/** Who made an audited change: a tenant API key, the platform operator, or a dashboard user. */
export type AuditActorType = 'api_key' | 'platform' | 'user';

/**
 * Append-only record of changes to a tenant's configuration (agents, versions, secrets, keys,
 * deletions): who, when, what. `details` never holds secret values.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    actorType: text('actor_type').$type<AuditActorType>().notNull(),
    /** The API key's id (no foreign key: the event outlives a deleted key). */
    actorId: text('actor_id'),
    /** The API key's prefix (`sk_AbCdEfGh`), so people can tell keys apart. */
    actorPrefix: text('actor_prefix'),
    /** `agent.created`, `secret.put`, … */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [index('audit_events_tenant_idx').on(t.tenantId, t.id)],
);

/** Responses to creating POSTs sent with an `Idempotency-Key`, replayed for 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** Method, path and body hash: the same key may not be reused for another request. */
    requestHash: text('request_hash').notNull(),
    /** Null while the first request is still being handled. */
    statusCode: integer('status_code'),
    responseBody: jsonb('response_body'),
    createdAt: createdAt(),
    /** The request handling the key: only it may link, complete or release it (a fence). */
    holder: uuid('holder'),
    /**
     * The holder's lease: a reservation with no answer past it belongs to a request that died, and
     * a retry takes it over. Longer than a request may take (the API's `RUN_WAIT_MS` plus margin).
     */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** What the request created, written in the transaction that created it (`run`, `conversation`). */
    resourceType: text('resource_type'),
    resourceId: uuid('resource_id'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] })],
);

export const schema = {
  idempotencyKeys,
  tenants,
  apiKeys,
  agents,
  agentVersions,
  conversations,
  conversationEvents,
  runs,
  messages,
  toolCalls,
  secrets,
  modelProviders,
  auditEvents,
};

/** Roles a dashboard user holds in a tenant; scopes follow from the role (apps/api scopes.ts). */
export type MemberRole = 'owner' | 'editor' | 'viewer';

/**
 * Dashboard users: global (one person may belong to several tenants). Emails are stored lower-cased
 * and unique case-insensitively; passwords only as argon2id PHC strings.
 */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
    /**
     * When the owner of the address proved they read its mail (a mailed invitation, a confirmation
     * or a password reset); null = unverified (an account made through a link shown to an inviter).
     */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`)],
);

/** What an account token is for: both prove the mailbox of the user's email. */
export type AccountTokenPurpose = 'password_reset' | 'email_confirmation';

/**
 * Single-use tokens mailed to a user (password reset, email confirmation). Only the SHA-256 of the
 * token is stored; `email` is the address it was sent to, so a token outlives no change of email.
 */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<AccountTokenPurpose>().notNull(),
    tokenHash: text('token_hash').notNull(),
    email: text('email').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('account_tokens_token_hash_idx').on(t.tokenHash), index('account_tokens_user_idx').on(t.userId)],
);

/** Who belongs to which tenant, with which role. */
export const tenantMembers = pgTable(
  'tenant_members',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MemberRole>().notNull(),
    /** Whether the member takes handoffs now (they mark themselves available). */
    available: boolean('available').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index('tenant_members_user_idx').on(t.userId)],
);

/**
 * Dashboard sessions (global: the tenant is chosen per request). Only the SHA-256 of the opaque
 * cookie token is stored; the CSRF token is returned to the page and compared per unsafe request.
 */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('user_sessions_token_hash_idx').on(t.tokenHash), index('user_sessions_user_idx').on(t.userId)],
);

/** How an invitation's token reached the invited person. */
export type InvitationDelivery = 'email' | 'link';

/** Invitations to join a tenant; the token is mailed (or shown once) and stored as SHA-256. */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<MemberRole>().notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The inviting user (null when the platform operator invited the first owner). No foreign key: outlives the user. */
    invitedBy: uuid('invited_by'),
    /**
     * How the token reached the invitee: `email` (mailed: accepting proves the mailbox) or `link`
     * (shown to the inviter: an account it creates stays unverified).
     */
    delivery: text('delivery').$type<InvitationDelivery>().notNull().default('link'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('invitations_token_hash_idx').on(t.tokenHash),
    index('invitations_tenant_idx').on(t.tenantId, t.id),
  ],
);

/** Events an agent's webhooks may subscribe to: the run statuses people wait for. */
export type WebhookEvent =
  | 'run.completed'
  | 'run.failed'
  | 'run.cancelled'
  | 'run.timed_out'
  | 'run.waiting'
  | 'conversation.handoff_requested'
  | 'conversation.human_message'
  | 'conversation.resolved';

/**
 * `pending`: due at `nextAttemptAt`; `sending`: claimed by a dispatcher until `nextAttemptAt` (its
 * lease; past it, another dispatcher takes the delivery over); `delivered` / `failed`: final.
 */
export type WebhookDeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/**
 * The webhook outbox: one row per (run status change × subscribed webhook), written in the same
 * transaction as the status, and sent at least once by the dispatchers (`FOR UPDATE SKIP LOCKED`).
 * `payload` is the exact body sent (no secret values); `headers` keep `{{secrets.X}}` templates,
 * opened only at send time.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** Also the `webhook-id` header and the payload's `id`: the same on every attempt. */
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The run whose status this is; null for a conversation's events (`conversation.*`). */
    runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
    /** The conversation of a `conversation.*` event (null for run events, which name it in the payload). */
    conversationId: uuid('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    event: text('event').$type<WebhookEvent>().notNull(),
    url: text('url').notNull(),
    /** Name of the tenant secret that signs the delivery. */
    signingSecret: text('signing_secret').notNull(),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    /** `json`, not `jsonb`: kept as written (key order), so every attempt sends the same bytes. */
    payload: json('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('pending'),
    /** Attempts started so far; also the fencing number of the current claim. */
    attempts: integer('attempts').notNull().default(0),
    /** When `pending`: the next attempt is due; when `sending`: the claim's lease ends. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: jsonb('last_error').$type<{ code: string; message: string }>(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    // Only open deliveries, by due time: the dispatchers' claim reads this and nothing else.
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} in ('pending', 'sending')`),
    index('webhook_deliveries_tenant_idx').on(t.tenantId, t.id),
    index('webhook_deliveries_run_idx').on(t.runId),
  ],
);

/** Postgres `bytea` as bytes (drizzle has no built-in column for it). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => new Uint8Array(value),
});

/** Postgres `tsvector`, written with `to_tsvector` only (never read back by the application). */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * A tenant's knowledge base: documents chunked, embedded with one model (fixed when it is made:
 * vectors of different models do not compare) and indexed for full text.
 */
export const knowledgeBases = pgTable(
  'knowledge_bases',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    /** `provider/model`. */
    embeddingModel: text('embedding_model').notNull(),
    dimensions: integer('dimensions').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('knowledge_bases_tenant_name_idx').on(t.tenantId, t.name)],
);

export type KnowledgeDocumentStatusValue = 'queued' | 'processing' | 'ready' | 'failed';
export type KnowledgeSourceKind = 'file' | 'text' | 'url';

/**
 * A document of a base: its stored source (`content`; a URL's fetched bytes, replaced by a
 * resync), where ingestion stands, and its counts. A crawl's pages are documents whose `parentId`
 * is the start page's.
 */
export const knowledgeDocuments = pgTable(
  'knowledge_documents',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    knowledgeBaseId: uuid('knowledge_base_id')
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: 'cascade' }),
    /** The crawl's start page, for the pages it found: deleting the start page deletes its crawl. */
    parentId: uuid('parent_id').references((): AnyPgColumn => knowledgeDocuments.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    source: text('source').$type<KnowledgeSourceKind>().notNull(),
    format: text('format'),
    filename: text('filename'),
    url: text('url'),
    /** A crawl's bounds; after a crawl, `skipped`: pages found but not added (the base was full). */
    crawl: jsonb('crawl').$type<{ max_pages: number; same_site: boolean; skipped?: number }>(),
    status: text('status').$type<KnowledgeDocumentStatusValue>().notNull().default('queued'),
    progress: real('progress').notNull().default(0),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    pages: integer('pages'),
    chunkCount: integer('chunk_count').notNull().default(0),
    content: bytea('content'),
    contentHash: text('content_hash'),
    /** Bumped by each resync: the job id is `<id>:<generation>`, so a resync is queued once. */
    generation: integer('generation').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('knowledge_documents_base_idx').on(t.knowledgeBaseId, t.createdAt),
    index('knowledge_documents_tenant_idx').on(t.tenantId),
    // A crawl adds each page once, however often its job runs (a retry, a resync).
    uniqueIndex('knowledge_documents_parent_url_idx').on(t.parentId, t.url),
    // The sweeper reads only unfinished documents.
    index('knowledge_documents_open_idx').on(t.updatedAt).where(sql`${t.status} in ('queued', 'processing')`),
  ],
);

/**
 * A chunk of a document: its text, where it sits, its embedding (`real[]`, unit length: portable,
 * compared with pgvector when the database has it, else by `knowledge_dot`) and its full-text
 * vector (of the language-neutral features computed in JavaScript, `simple` configuration).
 */
export const knowledgeChunks = pgTable(
  'knowledge_chunks',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    knowledgeBaseId: uuid('knowledge_base_id').notNull(),
    documentId: uuid('document_id')
      .notNull()
      .references(() => knowledgeDocuments.id, { onDelete: 'cascade' }),
    index: integer('index').notNull(),
    text: text('text').notNull(),
    headingPath: jsonb('heading_path').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    page: integer('page'),
    tokens: integer('tokens').notNull(),
    embedding: real('embedding').array().notNull(),
    search: tsvector('search').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('knowledge_chunks_base_idx').on(t.knowledgeBaseId),
    index('knowledge_chunks_document_idx').on(t.documentId, t.index),
    index('knowledge_chunks_search_idx').using('gin', t.search),
  ],
);

/**
 * An agent's test case (issue 22): user turns, tool fixtures and expectations
 * (`AgentTestDefinition` of the contract). `revision` goes up with every change; results keep the
 * definition they ran.
 */
export const agentTests = pgTable(
  'agent_tests',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    definition: orderedJson('definition').$type<Record<string, unknown>>().notNull(),
    revision: integer('revision').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('agent_tests_agent_name_idx').on(t.agentId, t.name)],
);

export type TestRunStatusValue = 'queued' | 'running' | 'passed' | 'failed' | 'error' | 'cancelled';

/** A case as a test run plans it: stored with the run, so edits after the start change nothing. */
export interface PlannedTestCase {
  testId: string | null;
  revision: number | null;
  name: string;
  definition: Record<string, unknown>;
}

/** A run of an agent's test cases against one version (a background job). */
export const testRuns = pgTable(
  'test_runs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    agentVersion: integer('agent_version').notNull(),
    status: text('status').$type<TestRunStatusValue>().notNull().default('queued'),
    /** `agent`, `demo` or a `provider/model` spec. */
    model: text('model').notNull(),
    judgeModel: text('judge_model'),
    repetitions: integer('repetitions').notNull(),
    threshold: doublePrecision('threshold').notNull(),
    cases: jsonb('cases').$type<PlannedTestCase[]>().notNull(),
    caseCount: integer('case_count').notNull(),
    completedCount: integer('completed_count').notNull().default(0),
    passedCount: integer('passed_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    /** The results' total; null when a model without a known price took part. */
    costUsd: doublePrecision('cost_usd'),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    /** Who started it (user id or API key id), for the audit trail. */
    createdBy: text('created_by'),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    /** Last sign of life of the job working on it (the sweeper queues a silent one again). */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('test_runs_agent_version_idx').on(t.agentId, t.agentVersion, t.createdAt),
    index('test_runs_active_idx').on(t.heartbeatAt).where(sql`${t.status} in ('queued', 'running')`),
  ],
);

/** One case's result in a test run: every repetition with its turns, observations and verdicts. */
export const testCaseResults = pgTable(
  'test_case_results',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    testRunId: uuid('test_run_id')
      .notNull()
      .references(() => testRuns.id, { onDelete: 'cascade' }),
    /** The case's place in the run's plan: a resumed run skips the positions already stored. */
    position: integer('position').notNull(),
    testId: uuid('test_id'),
    revision: integer('revision'),
    name: text('name').notNull(),
    passed: boolean('passed').notNull(),
    passRate: doublePrecision('pass_rate').notNull(),
    attempts: jsonb('attempts').$type<unknown[]>().notNull(),
    definition: jsonb('definition').$type<Record<string, unknown>>().notNull(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    /** Null when a model without a known price took part. */
    costUsd: doublePrecision('cost_usd'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('test_case_results_run_position_idx').on(t.testRunId, t.position)],
);
