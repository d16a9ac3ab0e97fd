import { type Conversation, type Db, getSealedSecrets } from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import { secretContext, type VerifiedEndUser } from '@agentry/run-service';
import type { SecretBox } from '@agentry/secrets';
import { type JWTPayload, jwtVerify } from 'jose';

/** The tenant secret that signs end-user tokens (HS256), set with `PUT /v1/secrets/END_USER_JWT_SECRET`. */
export const END_USER_SECRET = 'END_USER_JWT_SECRET';

/** The longest end-user id (`sub`) accepted: ids go into rate-limit keys and every conversation's context. */
export const MAX_END_USER_ID_CHARS = 256;

/**
 * Verifies a signed end-user identity (`X-End-User-Token`: a JWT the tenant's backend signed with
 * its END_USER_JWT_SECRET, HS256, with `sub` (a non-blank string of at most
 * {@link MAX_END_USER_ID_CHARS} characters) and a finite `exp`). Returns the user id it vouches for,
 * its claims and the token: what an agent's `end_user` declares of them is sealed on the message's
 * run for its tools (`{{user.…}}`), never shown anywhere else.
 *
 * @example
 * const { sub } = await verifyEndUser(db, box, tenantId, token); // 'user-42'
 */
export async function verifyEndUser(
  db: Db,
  box: SecretBox | undefined,
  tenantId: string,
  token: string,
): Promise<VerifiedEndUser> {
  const [sealed] = box ? await getSealedSecrets(db, tenantId, [END_USER_SECRET]) : [];
  if (!sealed || !box) throw invalid('the tenant has no END_USER_JWT_SECRET to verify it with');
  const key = new TextEncoder().encode(box.open(sealed, secretContext(tenantId, END_USER_SECRET)));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['sub', 'exp'] }));
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : 'it does not verify');
  }
  // jose checks that `exp` is a number and `sub` is present, not what they hold: a signed token
  // with an object `sub` would otherwise become user "[object Object]", and `exp: 1e400` never expire.
  const { sub, exp } = payload;
  if (typeof sub !== 'string' || sub.trim() === '' || sub.length > MAX_END_USER_ID_CHARS)
    throw invalid(`\`sub\` must be a non-empty string of at most ${MAX_END_USER_ID_CHARS} characters`);
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw invalid('`exp` must be a finite NumericDate');
  return { sub, claims: payload as Record<string, unknown>, token, exp };
}

/**
 * The verified end user whose values (`{{user.…}}`) a run in this conversation may send: a
 * visitor's (publishable key) only in a conversation that is theirs (created with their token, so
 * `context.userId` is their `sub`) — an anonymous conversation, which any visitor of the key may
 * read, never gets a signed-in user's values; the tenant's own servers' (secret key) in any.
 *
 * @example
 * runs.startMessageRun({ ..., endUser: (conversation) => endUserFor(principal, conversation) });
 */
export function endUserFor(
  principal: { kind: string; endUser?: VerifiedEndUser },
  conversation: Pick<Conversation, 'context'> | undefined,
): VerifiedEndUser | undefined {
  const endUser = principal.endUser;
  if (!endUser || !conversation) return undefined;
  if (principal.kind === 'publishable' && conversation.context.userId !== endUser.sub) return undefined;
  return endUser;
}

function invalid(why: string): AppError {
  return errors.of({
    code: 'invalid_end_user_token',
    message: `The end-user token is not valid: ${why}`,
    category: 'user',
  });
}
