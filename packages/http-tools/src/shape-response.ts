/**
 * What the model sees of a response: JSON parsed when it is JSON, only the configured `fields`
 * kept, and the whole cut to `maxBytes` (a cut is marked so the model knows data is missing).
 *
 * @example
 * shapeResponse('{"order":{"status":"shipped","items":[]}}', { maxBytes: 1000, fields: ['order.status'] });
 * // { order: { status: 'shipped' } }
 */
export function shapeResponse(
  text: string,
  options: { maxBytes: number; fields?: readonly string[]; contentType?: string | null; truncated?: boolean },
): unknown {
  const parsed = parseJson(text, options.contentType);
  if (parsed === undefined) return cut(text, options.maxBytes, options.truncated);
  const value = options.fields?.length ? selectFields(parsed.value, options.fields) : parsed.value;
  const json = JSON.stringify(value) ?? 'null';
  return Buffer.byteLength(json) <= options.maxBytes ? value : cut(json, options.maxBytes, true);
}

/**
 * Keeps only the given dot paths of a JSON value; arrays are mapped element by element.
 *
 * @example
 * selectFields({ a: { b: 1, c: 2 }, d: 3 }, ['a.b']); // { a: { b: 1 } }
 */
export function selectFields(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => selectFields(item, fields));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = Object.create(null);
  // head → deeper paths to keep, or 'whole' when the field itself is listed (it then wins).
  const groups = new Map<string, string[] | 'whole'>();
  for (const field of fields) {
    const [head = '', ...rest] = field.split('.');
    const group = groups.get(head) ?? [];
    if (group === 'whole') continue;
    groups.set(head, rest.length === 0 ? 'whole' : [...group, rest.join('.')]);
  }
  for (const [key, rest] of groups) {
    if (!Object.hasOwn(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    out[key] = rest === 'whole' ? child : selectFields(child, rest);
  }
  return out;
}

function parseJson(text: string, contentType: string | null | undefined): { value: unknown } | undefined {
  const looksJson = /json/i.test(contentType ?? '') || /^\s*[[{]/.test(text);
  if (!looksJson) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function cut(text: string, maxBytes: number, truncated = false): string {
  const buffer = Buffer.from(text);
  if (buffer.byteLength <= maxBytes && !truncated) return text;
  const kept = new TextDecoder().decode(buffer.subarray(0, maxBytes)).replace(/\uFFFD$/, '');
  return `${kept}\n[truncated: the response was longer than ${maxBytes} bytes]`;
}
