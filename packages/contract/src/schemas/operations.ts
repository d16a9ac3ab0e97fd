import { z } from 'zod';
import { component } from './common.ts';

/** Liveness and readiness (`/healthz`, `/readyz`). */

export const HealthSchema = component('Health', z.object({ status: z.literal('ok') }));
export const ReadinessSchema = component(
  'Readiness',
  z.object({
    status: z.enum(['ready', 'degraded', 'not_ready']),
    /** `ok`, or `error: <why>`. */
    checks: z.object({ database: z.string(), queue: z.string() }),
    /** With `degraded`: the components that do not answer (the queue: messages are refused with 503). */
    degraded: z.array(z.enum(['queue'])).optional(),
    /** How knowledge bases compare vectors on this database: pgvector, or the exact search built in. */
    vector_search: z.enum(['pgvector', 'builtin']).optional(),
  }),
);

export type Health = z.infer<typeof HealthSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;
