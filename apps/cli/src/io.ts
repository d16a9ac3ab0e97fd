/** Where a command writes; tests capture it, `main` passes the process streams. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** Exit codes shared by all commands. */
export const exitCode = { ok: 0, invalid: 1, unreadable: 2 } as const;
