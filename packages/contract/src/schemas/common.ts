import { z } from 'zod';
import { ROLES } from '../roles.ts';
import { RUN_STATUSES } from '../run-status.ts';

/**
 * The registry of the API's response shapes: each schema under its OpenAPI component name. The
 * API's document generator turns it into `components.schemas`, in registration order.
 */
export const apiSchemas = z.registry<{ id: string; description?: string }>();

/** Registers a response schema as the component `id` and returns it. */
export function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  apiSchemas.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}

export const timestamp = z.iso.datetime({ offset: true });
export const id = z.uuid();
export const RunStatusSchema = z.enum(RUN_STATUSES);
export const RoleSchema = z.enum(ROLES);

/** A page of a cursor-paginated list. */
export const list = <S extends z.ZodType>(item: S) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `?cursor=` to get the next page; null on the last page'),
  });

/** A page of a cursor-paginated list of `T`. */
export interface Page<T> {
  object: 'list';
  data: T[];
  next_cursor: string | null;
}
