/** The seed's marker for "fill this key from the system context variable of the same name". */
export const autofillMarker = 'todo_autofill_by_system';

// `{email}` (seed syntax) but not `{{email}}` or `{{{email}}}`.
const singleBrace = /(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})/g;

/**
 * Rewrites seed-style `{name}` placeholders to `{{name}}`, so both syntaxes share one engine and
 * one pass. Runs on the tenant's template only, never on values.
 *
 * @example
 * normalizeLegacyPlaceholders('{email}'); // '{{email}}'
 */
export function normalizeLegacyPlaceholders(source: string): string {
  return source.replace(singleBrace, '{{$1}}');
}

/**
 * The template a string value stands for: the autofill marker under key `dialogId` becomes
 * `{{context.dialogId}}`; anything else is normalised as above.
 *
 * @example
 * templateSource('dialogId', 'todo_autofill_by_system'); // '{{context.dialogId}}'
 */
export function templateSource(key: string | undefined, value: string): string {
  if (value === autofillMarker && key !== undefined) return `{{context.${key}}}`;
  return normalizeLegacyPlaceholders(value);
}
