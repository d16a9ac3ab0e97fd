import { mkdirSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { EnvError } from '@agentry/env';
import { type ApiConfig, readApiConfig } from './config.ts';
import { banner, embeddedAdminToken, seedDemo } from './embedded/demo-seed.ts';
import { startPlatform } from './platform.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;
/**
 * The embedded mode's heap headroom over the live heap after a full collection. PGlite allocates
 * for every statement in this process too, and with V8's default (a factor up to 4 on a large
 * machine) the heap grew to ≈ 500 MiB around ≈ 130 MiB of live objects under load, and stayed
 * there. V8 reads this at each full collection, so setting it after start-up takes effect. What
 * only takes effect when the process starts is in `pnpm start` (package.json): a young generation
 * of at most 2 × 16 MiB (V8 sized it from the machine's memory: ≈ 100 MiB more resident heap) and
 * the C allocator returning freed memory (PGlite's compiler and buffers left ≈ 150 MiB of freed
 * pages in its heap) — the embedded process's RSS under load ≈ 620 → ≈ 430 MiB (BENCHMARKS.md).
 */
const EMBEDDED_HEAP_GROWING_PERCENT = 20;

function loadConfig(): ApiConfig {
  try {
    return readApiConfig(process.env, process.argv.includes('--embedded'));
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  let config = loadConfig();
  if (config.mode === 'embedded') {
    setFlagsFromString(`--heap-growing-percent=${EMBEDDED_HEAP_GROWING_PERCENT}`);
    mkdirSync(config.dataDir, { recursive: true });
    config = { ...config, platformAdminToken: embeddedAdminToken(config.dataDir, config.platformAdminToken) };
  }
  const platform = await startPlatform(config);
  if (config.mode === 'embedded') {
    const demo = await seedDemo(platform.database.db, config.dataDir, platform.url);
    const model = config.models.openai || config.models.anthropic ? 'configured' : config.models.demo ? 'demo' : 'none';
    process.stdout.write(banner(platform.url, config.platformAdminToken!, demo, model));
  }
  const vectorSearch = await platform.knowledgeSearch.vectorSearch().catch(() => 'unknown');
  if (config.mode === 'embedded') process.stdout.write(`Knowledge bases: vector search ${vectorSearch}\n`);
  platform.logger.info({ url: platform.url, vector_search: vectorSearch }, 'api listening');

  const shutdown = (signal: string) => {
    platform.logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    platform.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

await main();
