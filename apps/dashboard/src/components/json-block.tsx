import { prettyJson } from './pretty-json.ts';

/** Read-only JSON, pretty-printed. */
export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" title={label}>
      {prettyJson(value)}
    </pre>
  );
}
