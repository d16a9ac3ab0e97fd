import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTenantWithKey,
  type Database,
  findUserByEmail,
  getAgentVersion,
  getMembership,
  listAgents,
  openDatabase,
} from '@agentry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretKey } from '../http/auth.ts';
import { verifyPassword } from '../http/password.ts';
import { banner, DEMO_USER_EMAIL, seedDemo } from './demo-seed.ts';

describe('embedded demo seed: the dashboard user', () => {
  let database: Database;
  let dir: string;
  beforeAll(async () => {
    database = await openDatabase({ kind: 'pglite' });
    dir = mkdtempSync(join(tmpdir(), 'agentry-demo-'));
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds an owner of the demo tenant with a random password, printed next to the key', async () => {
    const demo = await seedDemo(database.db, dir, 'http://127.0.0.1:3000');
    expect(demo?.user_email).toBe(DEMO_USER_EMAIL);
    expect(demo?.user_password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const user = await findUserByEmail(database.db, DEMO_USER_EMAIL);
    expect(await verifyPassword(user!.passwordHash, demo!.user_password!)).toBe(true);
    expect((await getMembership(database.db, demo!.tenant_id, user!.id))?.role).toBe('owner');
    const text = banner('http://127.0.0.1:3000', 'pat_x', demo, 'configured');
    expect(text).not.toContain('DEMO model');
    expect(banner('http://127.0.0.1:3000', 'pat_x', demo, 'demo')).toContain('built-in DEMO model, not an AI');
    expect(text).toContain(`${DEMO_USER_EMAIL} / ${demo!.user_password}`);
    expect(text).toContain('http://127.0.0.1:3000/dashboard/');
    // The seeded agent is properly named and calls this platform's own demo endpoint.
    const [agent] = await listAgents(database.db, demo!.tenant_id, { limit: 10 });
    expect(agent?.name).toBe('Demo booking assistant');
    expect(JSON.stringify(await getAgentVersion(database.db, demo!.tenant_id, agent!.id, 1))).toContain(
      'http://127.0.0.1:3000/demo/contacts',
    );
    // Later starts print the same credentials and create nothing new.
    expect(await seedDemo(database.db, dir, 'http://127.0.0.1:3000')).toEqual(demo);
  });

  it('adds the user to credentials saved before dashboard accounts existed', async () => {
    const older = await openDatabase({ kind: 'pglite' });
    const olderDir = mkdtempSync(join(tmpdir(), 'agentry-demo-'));
    try {
      const { tenant } = await createTenantWithKey(older.db, { name: 'Demo', key: generateSecretKey() });
      const legacy = { tenant_id: tenant.id, api_key: 'sk_x', agent_id: 'a', conversation_id: 'c' };
      writeFileSync(join(olderDir, 'demo.json'), JSON.stringify(legacy));
      const demo = await seedDemo(older.db, olderDir, 'http://127.0.0.1:3000');
      expect(demo).toMatchObject({ ...legacy, user_email: DEMO_USER_EMAIL, user_password: expect.any(String) });
      expect(JSON.parse(readFileSync(join(olderDir, 'demo.json'), 'utf8'))).toEqual(demo);
      const user = await findUserByEmail(older.db, DEMO_USER_EMAIL);
      expect((await getMembership(older.db, tenant.id, user!.id))?.role).toBe('owner');
    } finally {
      await older.close();
      rmSync(olderDir, { recursive: true, force: true });
    }
  }, 60_000);
});
