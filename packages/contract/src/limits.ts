/**
 * Bounds the API puts on request fields. The body schemas (`@agentry/contract/schemas`) apply
 * them; a client may use them to stop an input before the server refuses it.
 */

/**
 * The largest value of a Postgres `integer` column: body schemas bound such fields by it, so a
 * larger number is a 422 naming the field instead of a statement Postgres refuses (500).
 */
export const PG_INTEGER_MAX = 2_147_483_647;

/** Longest chat message, in characters (after trimming). */
export const MAX_MESSAGE_CHARS = 32_000;

/** Longest secret value. */
export const MAX_SECRET_BYTES = 16 * 1024;

/** Longest accepted password: hashing cost grows with length, so a megabyte "password" must not reach argon2. */
export const PASSWORD_MAX_LENGTH = 1024;
