import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { agentVersions } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

/**
 * Stores the last MCP re-check of a version (issue 9) as `last_check` inside its
 * `discovered_tools`, leaving the discovered tools themselves — what runs offer — untouched.
 * Returns false when the version is not the tenant's or discovered nothing (no MCP server).
 *
 * @example
 * await recordMcpCheck(db, tenantId, version.id, { checked_at: new Date().toISOString(), warnings });
 */
export async function recordMcpCheck(
  db: Db,
  tenantId: string,
  versionId: string,
  check: Record<string, unknown>,
): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(agentVersions)
      .set({
        discoveredTools: sql`jsonb_set(${agentVersions.discoveredTools}, '{last_check}', ${JSON.stringify(check)}::jsonb)`,
      })
      .where(
        and(
          eq(agentVersions.id, versionId),
          eq(agentVersions.tenantId, tenantId),
          sql`jsonb_typeof(${agentVersions.discoveredTools}) = 'object'`,
        ),
      )
      .returning({ id: agentVersions.id }),
  );
  return rows.length > 0;
}
