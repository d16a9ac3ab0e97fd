/** One key/value row of the headers, query or body editor. Non-string values are edited as JSON. */
export interface KeyValueRow {
  key: string;
  value: string;
  /** The value is JSON (a number, object, …), not a template string. */
  json: boolean;
}

export function objectToRows(object: Record<string, unknown> | undefined): KeyValueRow[] {
  return Object.entries(object ?? {}).map(([key, value]) =>
    typeof value === 'string' ? { key, value, json: false } : { key, value: JSON.stringify(value), json: true },
  );
}

/** Reads a JSON row's text; text that is not JSON yet stays a string so nothing typed is lost. */
export function rowValue(row: KeyValueRow): unknown {
  if (!row.json) return row.value;
  try {
    return JSON.parse(row.value);
  } catch {
    return row.value;
  }
}

/** Rows without a key are drafts and stay out of the config. */
export function rowsToObject(rows: KeyValueRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const row of rows) if (row.key.trim()) out[row.key.trim()] = rowValue(row);
  return out;
}
