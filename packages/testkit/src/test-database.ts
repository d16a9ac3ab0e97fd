import { randomBytes } from 'node:crypto';
import { type Database, openDatabase } from '@agentry/db';
import postgres from 'postgres';
import { availableServices, testServices } from './services.ts';

export type TestDatabaseKind = 'pglite' | 'postgres';

export interface TestDatabase extends Database {
  /** Connection URL for other processes (postgres only). */
  url?: string;
  /** Closes the connection and drops the database. */
  destroy(): Promise<void>;
}

function urlFor(database: string): string {
  const url = new URL(testServices.postgresUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates a migrated template database for one test run (global setup) and returns its name. */
export async function createTemplate(): Promise<string> {
  const name = `agentry_tpl_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database "${name}"`);
  const migrated = await openDatabase({ kind: 'postgres', url: urlFor(name), maxConnections: 1 });
  await migrated.close();
  return name;
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`drop database if exists "${name}" with (force)`);
}

async function adminQuery(statement: string): Promise<void> {
  const admin = postgres(testServices.postgresUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * A fresh, migrated database for one test file: a clone of the template on the machine's
 * Postgres, or an in-memory PGlite.
 *
 * @example
 * const database = await createTestDatabase('postgres');
 * afterAll(() => database.destroy());
 */
export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const database = await openDatabase({ kind: 'pglite' });
    return { ...database, destroy: () => database.close() };
  }
  const template = process.env.AGENTRY_TEST_PG_TEMPLATE;
  if (!template) throw new Error('No template database: run tests through vitest (its global setup creates one)');
  const name = `agentry_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database "${name}" template "${template}"`);
  const url = urlFor(name);
  const database = await openDatabase({ kind: 'postgres', url, maxConnections: 5 });
  return {
    ...database,
    url,
    destroy: async () => {
      await database.close();
      await dropDatabase(name);
    },
  };
}

/** The database kinds this machine can test: PGlite always, Postgres when it is running. */
export function testDatabaseKinds(): TestDatabaseKind[] {
  return availableServices().postgres ? ['pglite', 'postgres'] : ['pglite'];
}
