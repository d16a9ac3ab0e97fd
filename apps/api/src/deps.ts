import type { Db } from '@agentry/db';
import type { EgressPolicy } from '@agentry/http-tools';
import type { StdioServerDefinitions } from '@agentry/mcp';
import type { ModelProviderSettings } from '@agentry/models';
import type { JobQueue, RunScheduler } from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';
import type { SecretBox } from '@agentry/secrets';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DemoContacts } from './embedded/demo-contacts.ts';
import type { AdmissionOptions } from './http/admission.ts';
import type { ApiKeyCache } from './http/api-key-cache.ts';
import type { LiveStreams } from './http/live-stream.ts';
import type { RunFinishWatch } from './http/run-finish-watch.ts';
import type { StreamSlots } from './http/stream-slots.ts';
import type { VisitorStreams } from './http/visitor-streams.ts';
import type { AccountMail } from './mail/mailer.ts';
import type { AgentTestsApiDeps } from './routes/agent-tests.ts';
import type { KnowledgeApiDeps } from './routes/knowledge-bases.ts';

/** What the HTTP layer needs; built by `main.ts` (or a test) for either run mode. */
export interface ApiDeps {
  db: Db;
  pingDatabase(): Promise<void>;
  /** Remembers key lookups (`API_KEY_CACHE_TTL_MS`), kept exact by auth-change notifications; absent = none. */
  apiKeyCache?: ApiKeyCache;
  /** The job queue: its health (`/readyz`) and depth metrics; runs go through `scheduler`. */
  queue: JobQueue;
  /** Starts runs: dispatched at once, or parked until their tenant has a free slot. */
  scheduler: RunScheduler;
  events: RunEventBus;
  control: RunControl;
  models: ModelProviderSettings;
  /** The embedded mode's demo endpoint's contacts (`/demo/contacts`); absent elsewhere. */
  demoContacts?: DemoContacts;
  /** Requests per minute per tenant (unless set on the tenant) and per key; Redis shares the counters. */
  rateLimit: {
    perMinute: number;
    perEndUserPerMinute?: number;
    trustedProxies?: number;
    redis?: Redis;
    prefix?: string;
  };
  /** Where tenant tools may send requests (the tool tester uses it too). */
  egress: EgressPolicy;
  /** Seals and opens tenant secrets; undefined when no SECRETS_KEY is configured. */
  secretBox?: SecretBox;
  /** The operator's stdio MCP servers (`MCP_STDIO_SERVERS`): discovery at upload starts them. */
  mcpStdioServers?: StdioServerDefinitions;
  platformAdminToken?: string;
  /** How long `POST …/messages` waits for the run before answering 202. */
  runWaitMs: number;
  /**
   * How long an `Idempotency-Key` stays reserved for its request without an answer; a retry past it
   * takes the reservation of a request that died over (default `runWaitMs` + 30 s).
   */
  idempotencyLeaseMs?: number;
  /** The process's open event streams, capped (`MAX_EVENT_STREAMS`); absent = no cap. */
  streams?: StreamSlots;
  /** Each visitor's open event streams, capped (`MAX_EVENT_STREAMS_PER_VISITOR`); absent = no cap. */
  visitorStreams?: VisitorStreams;
  /** The inbox's and conversations' live streams (issue 21), ended on shutdown; absent = not tracked. */
  liveStreams?: LiveStreams;
  /** Wakes event streams that wait on the database because their bus failed; absent = they just end. */
  runFinishes?: RunFinishWatch;
  logger: Logger;
  /** Bounds /v1 requests doing database work at once (`ADMISSION_*`); absent or maxInFlight 0 = no bound. */
  admission?: AdmissionOptions;
  /** Account mail (invitations, confirmations, password resets) over SMTP; absent = no SMTP_URL. */
  mail?: AccountMail;
  /** Knowledge bases: search, the ingestion queue and the limits; absent = their routes answer 503. */
  knowledge?: KnowledgeApiDeps;
  /** Test runs (issue 22): their queue and bounds; absent = starting one answers 503. */
  agentTests?: AgentTestsApiDeps;
  /** Without mail: inviters are shown invitation links (`SHOW_INVITATION_LINKS`); else inviting is 503. */
  showInvitationLinks?: boolean;
}
