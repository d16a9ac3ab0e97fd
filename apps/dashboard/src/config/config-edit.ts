type Path = ReadonlyArray<string | number>;

/**
 * A copy of `root` with `value` at `path`; containers on the way are copied, never mutated, so
 * React sees the change and the JSON tab re-renders from the same object. `undefined` deletes.
 */
export function setIn<T>(root: T, path: Path, value: unknown): T {
  if (path.length === 0) return value as T;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  const container: unknown = root ?? (typeof head === 'number' ? [] : {});
  if (Array.isArray(container)) {
    const copy = [...container];
    const index = Number(head);
    if (value === undefined && rest.length === 0) copy.splice(index, 1);
    else copy[index] = setIn(copy[index], rest, value);
    return copy as T;
  }
  const copy: Record<string, unknown> = { ...(container as Record<string, unknown>) };
  const key = String(head);
  if (value === undefined && rest.length === 0) delete copy[key];
  else copy[key] = setIn(copy[key], rest, value);
  return copy as T;
}

export function getIn(root: unknown, path: Path): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[String(key)];
  }
  return node;
}

/** Moves an array item, for reordering cards with buttons (keyboard friendly, no drag needed). */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= items.length) return [...items];
  const copy = [...items];
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item as T);
  return copy;
}
