import { type Db, getSealedSecrets } from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import type { SecretBox } from '@agentry/secrets';

/** The AAD a secret is sealed with: a sealed value only opens in its own tenant and name. */
export function secretContext(tenantId: string, name: string): string {
  return `${tenantId}/${name}`;
}

/**
 * Opens the named secrets of a tenant. Throws `missing_secret` naming every absent one, and
 * `secrets_not_configured` when secrets are needed but no encryption key is set.
 *
 * @example
 * const values = await openSecrets(db, box, tenantId, agent.requiredSecrets);
 */
export async function openSecrets(
  db: Db,
  box: SecretBox | undefined,
  tenantId: string,
  names: string[],
): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  if (!box) throw secretsNotConfigured();
  return openSealedSecrets(box, tenantId, names, await getSealedSecrets(db, tenantId, names));
}

/**
 * `openSecrets` over rows already read (`getSealedSecrets`), with the same errors.
 *
 * @example
 * const values = openSealedSecrets(box, tenantId, agent.requiredSecrets, await getSealedSecrets(db, tenantId, names));
 */
export function openSealedSecrets(
  box: SecretBox | undefined,
  tenantId: string,
  names: string[],
  rows: SealedSecret[],
): Record<string, string> {
  if (names.length === 0) return {};
  if (!box) throw secretsNotConfigured();
  const missing = names.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length > 0) {
    throw errors.of({
      code: 'missing_secret',
      message: `The agent needs the secret${missing.length > 1 ? 's' : ''} ${missing.map((n) => `\`${n}\``).join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not set: PUT /v1/secrets/{name}`,
      category: 'user',
      retryable: false,
      details: { missing },
    });
  }
  return Object.fromEntries(rows.map((r) => [r.name, box.open(r, secretContext(tenantId, r.name))]));
}

/** A sealed secret as `getSealedSecrets` reads it. */
export type SealedSecret = Awaited<ReturnType<typeof getSealedSecrets>>[number];

export function secretsNotConfigured(): AppError {
  return errors.of({
    code: 'secrets_not_configured',
    message: 'Tenant secrets are not available: the platform has no SECRETS_KEY',
    category: 'system',
    retryable: false,
  });
}
