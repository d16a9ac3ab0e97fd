/** Read-only JSON, pretty-printed; strings are shown as they are. */
export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <pre className="json" aria-label={label}>
      {text ?? 'null'}
    </pre>
  );
}
