import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSecretKey } from '@agentry/secrets';

/**
 * The embedded mode's secret-encryption key when SECRETS_KEY is not set: made once and kept in the
 * data dir (mode 0600) beside the database it protects. Production sets SECRETS_KEY instead.
 */
export function embeddedSecretKeys(dataDir: string): { keys: Record<string, Buffer>; currentKeyId: string } {
  const file = join(dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  return { keys: { local: parseSecretKey(readFileSync(file, 'utf8').trim()) }, currentKeyId: 'local' };
}
