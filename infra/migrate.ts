/**
 * One-shot migration entry point for deployments: applies pending migrations to `DATABASE_URL`
 * and exits (0 on success, 1 on failure, 2 on a bad variable).
 *
 *   node infra/migrate.ts
 *
 * Every API and worker process also migrates at start-up under the same Postgres advisory lock,
 * so this step is an ordering convenience (compose `migrate` service, Kubernetes Job run before a
 * rollout), not a requirement. The relative imports are deliberate: infra/ is not a workspace
 * package, and these two files resolve their own dependencies from packages/db and packages/env.
 */
import { openDatabase } from '../packages/db/src/index.ts';
import { EnvError, envUrl } from '../packages/env/src/env.ts';

let url: string | undefined;
try {
  url = envUrl(process.env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (!url) throw new EnvError('DATABASE_URL', 'migrations need a Postgres URL');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}

const started = Date.now();
try {
  const database = await openDatabase({ kind: 'postgres', url, maxConnections: 1 });
  await database.close();
  console.log(JSON.stringify({ level: 'info', msg: 'migrations applied', ms: Date.now() - started }));
} catch (error) {
  console.error(JSON.stringify({ level: 'error', msg: 'migration failed', error: String(error) }));
  process.exit(1);
}
