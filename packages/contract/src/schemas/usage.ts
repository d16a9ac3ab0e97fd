import { z } from 'zod';
import { component, id } from './common.ts';

/** Usage per UTC day and agent (`GET /v1/usage`). */

const UsageCounts = z.object({
  runs: z.int(),
  completed: z.int(),
  failed: z.int(),
  cancelled: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_write_tokens: z.int(),
  tool_calls: z.int(),
  tool_errors: z.int(),
});

export const UsageSchema = component(
  'Usage',
  z.object({
    object: z.literal('usage'),
    from: z.iso.date(),
    to: z.iso.date(),
    agent_id: z.string().optional(),
    data: z.array(UsageCounts.extend({ date: z.iso.date(), agent_id: id })),
    totals: UsageCounts,
  }),
);

export type Usage = z.infer<typeof UsageSchema>;
/** One UTC day of one agent. */
export type UsageRow = Usage['data'][number];
export type UsageTotals = Usage['totals'];
