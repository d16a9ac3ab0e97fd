import type { SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';

/**
 * Test helper: the rows of a raw query on either driver (postgres-js answers an array, PGlite
 * `{ rows }`).
 *
 * @example
 * const tables = await queryRows<{ table_name: string }>(db, sql`select table_name from information_schema.tables`);
 */
export async function queryRows<T>(db: Db, statement: SQL): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown as T[] | { rows?: T[] };
  return Array.isArray(result) ? result : (result.rows ?? []);
}
