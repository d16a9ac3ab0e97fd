import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, tenants, withTenantScope } from './index.ts';
import { prebuilt } from './prebuilt.ts';

describe.each(testDatabaseKinds())('prebuilt statements on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  let builds = 0;
  const tenantNamed = prebuilt((db) => {
    builds++;
    return db
      .select({ id: tenants.id, name: tenants.name })
      .from(tenants)
      .where(eq(tenants.id, sql.placeholder('id')));
  });
  const newTenant = (name: string) =>
    createTenantWithKey(database.db, { name, key: { prefix: 'sk_p', hash: `prebuilt-${kind}-${name}` } });

  it('builds once and runs with each call’s values, in the transaction it is given (its tenant scope too)', async () => {
    const { tenant: a } = await newTenant('A');
    const { tenant: b } = await newTenant('B');
    const before = builds;
    expect(await withTenantScope(database.db, a.id, (tx) => tenantNamed(tx, { id: a.id }))).toEqual([
      { id: a.id, name: 'A' },
    ]);
    expect(await withTenantScope(database.db, b.id, (tx) => tenantNamed(tx, { id: b.id }))).toEqual([
      { id: b.id, name: 'B' },
    ]);
    // Row security applies: tenant A's transaction does not see tenant B.
    expect(await withTenantScope(database.db, a.id, (tx) => tenantNamed(tx, { id: b.id }))).toEqual([]);
    // It runs in the transaction: an uncommitted change is seen there, and rolled back with it.
    await expect(
      withTenantScope(database.db, a.id, async (tx) => {
        await tx.update(tenants).set({ name: 'A2' }).where(eq(tenants.id, a.id));
        expect(await tenantNamed(tx, { id: a.id })).toEqual([{ id: a.id, name: 'A2' }]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await withTenantScope(database.db, a.id, (tx) => tenantNamed(tx, { id: a.id }))).toEqual([
      { id: a.id, name: 'A' },
    ]);
    expect(builds - before).toBeLessThanOrEqual(1);
  });
});
