/** Writes `value` at `path` of the draft config; `undefined` removes the key. */
export type Edit = (path: ReadonlyArray<string | number>, value: unknown) => void;
