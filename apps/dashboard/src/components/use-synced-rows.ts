import { useRef, useState } from 'react';

/**
 * Local rows for an editor of a config value (an object or a schema). The rows may hold drafts
 * the value cannot (an empty key, a duplicate); they are rebuilt only when the value changes from
 * outside (the JSON tab, a template), never from our own edits.
 */
export function useSyncedRows<V, R>(value: V, toRows: (value: V) => R[], fromRows: (rows: R[]) => V) {
  const [rows, setRows] = useState<R[]>(() => toRows(value));
  const emitted = useRef<string>(JSON.stringify(value ?? null));
  const seen = JSON.stringify(value ?? null);
  let current = rows;
  if (seen !== emitted.current) {
    emitted.current = seen;
    current = toRows(value);
    setRows(current);
  }
  const update = (next: R[], onChange: (value: V) => void) => {
    setRows(next);
    const out = fromRows(next);
    emitted.current = JSON.stringify(out ?? null);
    onChange(out);
  };
  return [current, update] as const;
}
