const ID = /^(\d+)(?:-(\d+))?$/;

/**
 * A resume point in the canonical `ms-seq` form Redis answers with (`5` means `5-0`, as XREAD
 * reads it), so ids compare as strings of digits. Anything else is passed through unchanged: Redis
 * rejects it on the first read, as it always did.
 *
 * @example
 * canonicalStreamId('0'); // '0-0'
 */
export function canonicalStreamId(id: string): string {
  const match = ID.exec(id);
  if (!match) return id;
  return `${BigInt(match[1]!)}-${BigInt(match[2] ?? '0')}`;
}

/**
 * Orders two canonical stream ids (negative, zero, positive), without parsing numbers: both parts
 * can exceed 2^53, and this runs once per entry and subscriber.
 *
 * @example
 * compareStreamIds('1700000000000-2', '1700000000000-10'); // < 0
 */
export function compareStreamIds(a: string, b: string): number {
  const dashA = a.indexOf('-');
  const dashB = b.indexOf('-');
  return compareDigits(a.slice(0, dashA), b.slice(0, dashB)) || compareDigits(a.slice(dashA + 1), b.slice(dashB + 1));
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
