import { and, count, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { agents, agentVersions, runs } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

export type Agent = typeof agents.$inferSelect;
export type AgentVersion = typeof agentVersions.$inferSelect;

export interface NewVersionInput {
  tenantId: string;
  config: Record<string, unknown>;
  contentHash: string;
  name: string;
  publish: boolean;
  /** MCP tools discovered at publish time, stored with the version (issue 9). */
  discoveredTools?: Record<string, unknown> | null;
}

/** Creates an agent with version 1 (published when `publish`), atomically. */
export async function createAgent(db: Db, input: NewVersionInput): Promise<{ agent: Agent; version: AgentVersion }> {
  return withTenantScope(db, input.tenantId, async (tx) => {
    const agentId = newId();
    const [agent] = await tx
      .insert(agents)
      .values({
        id: agentId,
        tenantId: input.tenantId,
        name: input.name,
        latestVersion: 1,
        publishedVersion: input.publish ? 1 : null,
      })
      .returning();
    const [version] = await tx
      .insert(agentVersions)
      .values({
        id: newId(),
        tenantId: input.tenantId,
        agentId,
        version: 1,
        config: input.config,
        contentHash: input.contentHash,
        discoveredTools: input.discoveredTools ?? null,
        publishedAt: input.publish ? sql`now()` : null,
      })
      .returning();
    return { agent: agent!, version: version! };
  });
}

/**
 * Appends an immutable version. The agent row is locked while numbering so concurrent uploads get
 * distinct, gap-free numbers. Returns undefined when the agent is not the tenant's.
 */
export async function addAgentVersion(
  db: Db,
  agentId: string,
  input: NewVersionInput,
): Promise<{ agent: Agent; version: AgentVersion } | undefined> {
  return withTenantScope(db, input.tenantId, async (tx) => {
    const [current] = await tx
      .select()
      .from(agents)
      .where(and(eq(agents.id, agentId), eq(agents.tenantId, input.tenantId)))
      .for('update');
    if (!current) return undefined;
    const number = current.latestVersion + 1;
    const [version] = await tx
      .insert(agentVersions)
      .values({
        id: newId(),
        tenantId: input.tenantId,
        agentId,
        version: number,
        config: input.config,
        contentHash: input.contentHash,
        discoveredTools: input.discoveredTools ?? null,
        publishedAt: input.publish ? sql`now()` : null,
      })
      .returning();
    const [agent] = await tx
      .update(agents)
      .set({
        latestVersion: number,
        name: input.name,
        updatedAt: sql`now()`,
        ...(input.publish ? { publishedVersion: number } : {}),
      })
      .where(eq(agents.id, agentId))
      .returning();
    return { agent: agent!, version: version! };
  });
}

export async function getAgent(db: Db, tenantId: string, agentId: string): Promise<Agent | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(agents)
      .where(and(eq(agents.id, agentId), eq(agents.tenantId, tenantId))),
  );
  return row;
}

export async function getAgentVersion(
  db: Db,
  tenantId: string,
  agentId: string,
  version: number,
): Promise<AgentVersion | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) => versionById(tx, { agentId, tenantId, version }));
  return row;
}

/**
 * A key naming an agent version's config for good — a version's config is never rewritten (only
 * its MCP discovery notes are) — for caches of what is derived from it, such as the checked config.
 *
 * @example
 * loadAgentConfig(version.config, { cacheKey: agentVersionKey(version) });
 */
export function agentVersionKey(version: Pick<AgentVersion, 'id' | 'contentHash'>): string {
  return `${version.id}:${version.contentHash}`;
}

const versionById = prebuilt((db) =>
  db
    .select()
    .from(agentVersions)
    .where(
      and(
        eq(agentVersions.agentId, sql.placeholder('agentId')),
        eq(agentVersions.tenantId, sql.placeholder('tenantId')),
        eq(agentVersions.version, sql.placeholder('version')),
      ),
    ),
);

/** An agent with one of its versions, read together (`getAgentWithVersion`). */
export interface AgentWithVersion {
  agent: Agent;
  /** Undefined when the version asked for does not exist, or none was asked and none is published. */
  version: AgentVersion | undefined;
}

/**
 * An agent with the version `version` names, or its published version when `version` is
 * undefined, in one statement (a left join) instead of one query each. Undefined when the agent
 * is not the tenant's.
 *
 * @example
 * const found = await getAgentWithVersion(db, tenantId, agentId, body.agent_version);
 * if (!found) throw errors.notFound('agent', agentId);
 * if (!found.version) throw errors.conflict('agent_not_published', '…');
 */
export async function getAgentWithVersion(
  db: Db,
  tenantId: string,
  agentId: string,
  version?: number,
): Promise<AgentWithVersion | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    version === undefined
      ? agentWithPublished(tx, { agentId, tenantId })
      : agentWithVersion(tx, { agentId, tenantId, version }),
  );
  return row ? { agent: row.agent, version: row.version ?? undefined } : undefined;
}

function buildAgentWithVersion(db: Db, published: boolean) {
  return db
    .select({ agent: agents, version: agentVersions })
    .from(agents)
    .leftJoin(
      agentVersions,
      and(
        eq(agentVersions.agentId, agents.id),
        eq(agentVersions.tenantId, sql.placeholder('tenantId')),
        published
          ? eq(agentVersions.version, agents.publishedVersion)
          : eq(agentVersions.version, sql.placeholder('version')),
      ),
    )
    .where(and(eq(agents.id, sql.placeholder('agentId')), eq(agents.tenantId, sql.placeholder('tenantId'))));
}

const agentWithPublished = prebuilt((db) => buildAgentWithVersion(db, true));
const agentWithVersion = prebuilt((db) => buildAgentWithVersion(db, false));

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export async function listAgents(db: Db, tenantId: string, page: { limit: number; before?: string }): Promise<Agent[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(agents)
      .where(and(eq(agents.tenantId, tenantId), page.before ? lt(agents.id, page.before) : undefined))
      .orderBy(desc(agents.id))
      .limit(page.limit),
  );
}

/**
 * Runs started since `since` per agent, for the agents listed (agents without runs are absent).
 * Uses the (tenant, created_at) index: one range scan over the tenant's recent runs.
 *
 * @example
 * const recent = await countRecentRuns(db, tenantId, ids, new Date(Date.now() - 86_400_000));
 * recent.get(agentId) ?? 0;
 */
export async function countRecentRuns(
  db: Db,
  tenantId: string,
  agentIds: string[],
  since: Date,
): Promise<Map<string, number>> {
  if (agentIds.length === 0) return new Map();
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ agentId: runs.agentId, runs: count() })
      .from(runs)
      .where(and(eq(runs.tenantId, tenantId), gte(runs.createdAt, since), inArray(runs.agentId, agentIds)))
      .groupBy(runs.agentId),
  );
  return new Map(rows.map((row) => [row.agentId, row.runs]));
}

/** Every version of an agent, newest first, without the config bodies. */
export async function listAgentVersions(
  db: Db,
  tenantId: string,
  agentId: string,
): Promise<Array<Omit<AgentVersion, 'config'>>> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select({
        id: agentVersions.id,
        tenantId: agentVersions.tenantId,
        agentId: agentVersions.agentId,
        version: agentVersions.version,
        contentHash: agentVersions.contentHash,
        createdAt: agentVersions.createdAt,
        publishedAt: agentVersions.publishedAt,
        discoveredTools: agentVersions.discoveredTools,
      })
      .from(agentVersions)
      .where(and(eq(agentVersions.agentId, agentId), eq(agentVersions.tenantId, tenantId)))
      .orderBy(desc(agentVersions.version)),
  );
}

/**
 * Makes an existing version the published one (publish or roll back) and stamps its `publishedAt`,
 * so the version history can tell once-live versions from drafts; undefined if it does not exist.
 */
export async function publishAgentVersion(
  db: Db,
  tenantId: string,
  agentId: string,
  version: number,
): Promise<Agent | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [exists] = await tx
      .update(agentVersions)
      .set({ publishedAt: sql`now()` })
      .where(
        and(
          eq(agentVersions.agentId, agentId),
          eq(agentVersions.tenantId, tenantId),
          eq(agentVersions.version, version),
        ),
      )
      .returning({ version: agentVersions.version });
    if (!exists) return undefined;
    const [agent] = await tx
      .update(agents)
      .set({ publishedVersion: version, updatedAt: sql`now()` })
      .where(and(eq(agents.id, agentId), eq(agents.tenantId, tenantId)))
      .returning();
    return agent;
  });
}
