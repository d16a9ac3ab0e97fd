/** One contact the demo agent's tool saved. */
export interface DemoContact {
  email: string;
  name: string | null;
  saved_at: string;
}

/** Contacts per tenant the demo endpoint keeps (the oldest go first). */
export const DEMO_CONTACTS_PER_TENANT = 100;

/**
 * What the embedded mode's demo endpoint records: contacts the demo agent's tool saved, per tenant,
 * in memory (a demo, gone at restart), bounded per tenant and in tenants.
 *
 * @example
 * const contacts = createDemoContacts();
 * contacts.record(tenantId, { email: 'kim@example.com', name: null });
 */
export function createDemoContacts(maxTenants = 1000) {
  const byTenant = new Map<string, DemoContact[]>();
  return {
    record(tenantId: string, contact: { email: string; name: string | null }): DemoContact {
      const saved = { ...contact, saved_at: new Date().toISOString() };
      const list = byTenant.get(tenantId) ?? [];
      list.unshift(saved);
      list.length = Math.min(list.length, DEMO_CONTACTS_PER_TENANT);
      byTenant.delete(tenantId);
      byTenant.set(tenantId, list);
      // The tenant that saved longest ago goes first (a Map keeps insertion order).
      if (byTenant.size > maxTenants) byTenant.delete(byTenant.keys().next().value!);
      return saved;
    },
    /** Newest first. */
    list(tenantId: string): DemoContact[] {
      return [...(byTenant.get(tenantId) ?? [])];
    },
  };
}

export type DemoContacts = ReturnType<typeof createDemoContacts>;
