import { canConnect, testServices } from './services.ts';
import { createTemplate, dropDatabase } from './test-database.ts';

/**
 * Vitest global setup: finds out which real services the machine has (and says so loudly when one
 * is missing: tests that need it are then skipped, never silently passed), and creates this run's
 * migrated template database, dropped again at the end.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const [postgres, redis] = await Promise.all([
    canConnect(testServices.postgresUrl),
    canConnect(testServices.redisUrl),
  ]);
  process.env.AGENTRY_TEST_HAS_POSTGRES = postgres ? '1' : '0';
  process.env.AGENTRY_TEST_HAS_REDIS = redis ? '1' : '0';
  if (!postgres)
    console.warn(
      `\n[agentry tests] NOTICE: no PostgreSQL at ${testServices.postgresUrl}: Postgres suites run on embedded PGlite only.\n`,
    );
  if (!redis)
    console.warn(`\n[agentry tests] NOTICE: no Redis at ${testServices.redisUrl}: BullMQ suites are SKIPPED.\n`);
  const template = postgres ? await createTemplate() : undefined;
  if (template) process.env.AGENTRY_TEST_PG_TEMPLATE = template;
  return async () => {
    if (template) await dropDatabase(template);
  };
}
