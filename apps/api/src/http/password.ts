import { errors } from '@agentry/errors';
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id`: the package's const enum cannot be imported under type stripping. */
const ARGON2ID = 2;

/** OWASP's argon2id baseline: 19 MiB of memory, 2 passes, 1 lane. */
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Shortest password a new account may have (NIST SP 800-63B asks for at least 8; we ask 10). */
export const PASSWORD_MIN_LENGTH = 10;

/**
 * The rules a new password follows (at sign-up through an invitation and at a reset): 422
 * `validation_failed` at `/password` when it is too short. The longest is the body schema's
 * (`PASSWORD_MAX_LENGTH` in @agentry/contract).
 */
export function assertNewPassword(password: string): void {
  if (password.length >= PASSWORD_MIN_LENGTH) return;
  throw errors.validation('The password is too short', [
    {
      path: '/password',
      code: 'too_short',
      message: `Choose a password of at least ${PASSWORD_MIN_LENGTH} characters`,
    },
  ]);
}

/**
 * An argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) with a fresh random salt.
 *
 * @example
 * const passwordHash = await hashPassword('correct horse battery staple');
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/**
 * Whether `password` matches the stored hash (argon2 compares in constant time). A malformed hash
 * counts as a mismatch rather than an error.
 *
 * @example
 * if (!(await verifyPassword(user.passwordHash, body.password))) throw invalidCredentials();
 */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as checking a real password, for logins with an unknown email: otherwise
 * a fast answer would tell who has an account.
 */
export async function verifyDummyPassword(password: string): Promise<void> {
  dummyHash ??= hashPassword('agentry-dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
}
