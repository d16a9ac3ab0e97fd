import { errors } from '@agentry/errors';

/** Where a placeholder's value lands; each position has its own encoding (never HTML escaping). */
export type TemplatePosition = 'path' | 'query' | 'header' | 'body';

/**
 * A value as text inside a string: strings as they are, numbers and booleans printed, objects as JSON,
 * missing values as nothing.
 *
 * @example
 * valueText(42); // '42'
 */
export function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * Encodes a value for its position. Path and query values are percent-encoded as one unit, so
 * `../admin?x=` stays inside its segment; header values may not contain CR, LF, NUL or non-Latin-1
 * characters (no header injection); body values stay plain text because JSON.stringify quotes them.
 *
 * @example
 * encodeFor('path', '../admin'); // '..%2Fadmin'
 */
export function encodeFor(position: TemplatePosition, value: unknown): string {
  const text = valueText(value);
  if (position === 'path' || position === 'query') return encodeURIComponent(text);
  if (position === 'header') return assertHeaderSafe(text);
  return text;
}

/** Throws `invalid_arguments` when text cannot be a header value. */
export function assertHeaderSafe(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: CR, LF and NUL are exactly what we refuse.
  if (/[\r\n\u0000]/.test(text) || /[^\u0000-\u00ff]/.test(text)) {
    throw errors.validation(
      'A value for an HTTP header contains line breaks or characters headers cannot carry',
      [
        {
          path: '',
          code: 'invalid_header_value',
          message: 'header values may not contain line breaks, NUL or non-Latin-1 characters',
        },
      ],
      'invalid_arguments',
    );
  }
  return text;
}
