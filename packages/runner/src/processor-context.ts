import type { Db, Run } from '@agentry/db';
import type { EgressPolicy, ToolResultCache } from '@agentry/http-tools';
import type { KnowledgeSearch } from '@agentry/knowledge';
import type { StdioServerDefinitions } from '@agentry/mcp';
import type { ModelProviderSettings } from '@agentry/models';
import type { RunScheduler } from '@agentry/queue';
import { createDeltaCoalescer, type RunControl, type RunEventBus } from '@agentry/run-events';
import type { SecretBox } from '@agentry/secrets';
import type { RunTelemetry } from '@agentry/telemetry';
import { createInfrastructureBackoff, type InfrastructureBackoff } from './infrastructure-faults.ts';
import { type ActiveAttempts, createActiveAttempts } from './stop-reasons.ts';
import type { WriteBehind } from './write-behind.ts';

export interface RunExecutorDeps {
  db: Db;
  models: ModelProviderSettings;
  /** Attempts the queue makes per job; the last one records a failure instead of rethrowing. */
  maxAttempts: number;
  fetch?: typeof fetch;
  /** Where run events go (SSE relays read them); omitted = events are dropped. */
  events?: RunEventBus;
  /** Cancellation requests from the API. */
  control?: RunControl;
  /** Where tools may send requests (SSRF guard); default: public addresses only. */
  egress?: EgressPolicy;
  /** Opens tenant secrets for tool templates and agents' own model keys. */
  secretBox?: SecretBox;
  /** Stored responses of tools with `cache: { ttl }` (Redis, or in-process when embedded); omitted = never cached. */
  toolCache?: ToolResultCache;
  /** The platform operator's stdio MCP servers (`MCP_STDIO_SERVERS`); none when unset. */
  mcpStdioServers?: StdioServerDefinitions;
  /**
   * Tenant slots and wake-ups (`@agentry/queue`'s RunScheduler): a job holds its tenant's slot
   * while it works, and the conversation's next queued run is submitted when a run ends. Omitted =
   * no cap and no wake-ups (tests that drive single runs).
   */
  scheduler?: RunScheduler;
  heartbeatMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  /** Metrics and spans (`@agentry/telemetry`); omitted = none. */
  telemetry?: RunTelemetry;
  /**
   * Searches the tenants' knowledge bases for agents with `knowledge` (their `search_knowledge`
   * tool, `auto` mode). Omitted = such agents' searches fail as a tool error (`embeddings_not_configured`).
   */
  knowledge?: KnowledgeSearch;
}

export type RunLog = NonNullable<RunExecutorDeps['log']>;

/** A run event as the processor publishes it (the loop's own events too, from `onEvent`). */
export type ProcessorEvent = { type: string; final?: boolean };

/**
 * What the parts of a run processor share: its deps, the attempts it runs, the infrastructure
 * faults it backs off from, and two helpers every part writes or publishes through.
 */
export interface ProcessorContext {
  deps: RunExecutorDeps;
  log: RunLog;
  telemetry: RunTelemetry | undefined;
  attempts: ActiveAttempts;
  faults: InfrastructureBackoff;
  /** A checkpoint: what the attempt put off, in one transaction (a `db.checkpoint` span when telemetry is on). */
  checkpoint(run: Run, writes: WriteBehind): Promise<unknown>;
  /**
   * Publishes a run event; a failure is logged, never thrown (the run goes on). Every event of a
   * run goes through here — the loop's and the processor's — so that the run's deltas are merged
   * (`createDeltaCoalescer`) without changing their order with the rest: a delta settles once its
   * merged event is stored, within 25 ms; any other event goes at once, after the deltas before it.
   */
  publish<E extends ProcessorEvent>(runId: string, event: E): Promise<void>;
  /** Publishes the run's buffered deltas now: its attempt ended, however it ended. */
  flushEvents(runId: string): void;
}

/**
 * @example
 * const ctx = createProcessorContext(deps);
 * await ctx.publish(run.id, { type: 'run-status', status: 'running' });
 */
export function createProcessorContext(deps: RunExecutorDeps): ProcessorContext {
  const log: RunLog = deps.log ?? (() => {});
  const telemetry = deps.telemetry;
  // One per processor: a run's buffer lives only while it has text, so idle runs cost nothing.
  const events = deps.events && createDeltaCoalescer(deps.events);
  return {
    deps,
    log,
    telemetry,
    attempts: createActiveAttempts(),
    faults: createInfrastructureBackoff(),
    checkpoint: (run, writes) => (telemetry ? telemetry.traceCheckpoint(run, () => writes.commit()) : writes.commit()),
    async publish(runId, event) {
      await events?.publish(runId, event).catch((error: unknown) => {
        log('warn', 'event publish failed', { runId, error: String(error) });
      });
    },
    flushEvents: (runId) => events?.flush(runId),
  };
}
