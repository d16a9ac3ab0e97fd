import { v7 } from 'uuid';

/** Time-ordered ids (UUIDv7): index-friendly and sortable by creation. */
export function newId(): string {
  return v7();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` can be an id at all; lets callers answer 404 without asking the database. */
export function isId(value: string): boolean {
  return UUID_RE.test(value);
}
