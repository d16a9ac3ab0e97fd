import { z } from 'zod';
import { component, list, timestamp } from './common.ts';

/** The embedded mode's demo endpoint (`POST /demo/contacts`) and what it recorded (`GET /v1/demo/contacts`). */

export const DemoContactBodySchema = component(
  'DemoContactBody',
  z.object({ email: z.email().max(254), name: z.string().max(200).optional() }),
  'What the demo agent’s tool sends',
);

export const DemoContactSchema = component(
  'DemoContact',
  z.object({ email: z.string(), name: z.string().nullable(), saved_at: timestamp }),
  'A contact the demo agent’s tool saved',
);

export const DemoContactSavedSchema = component(
  'DemoContactSaved',
  z.object({ saved: z.literal(true), contact: DemoContactSchema }),
);

export const DemoContactListSchema = component('DemoContactList', list(DemoContactSchema));

export type DemoContactBody = z.infer<typeof DemoContactBodySchema>;
export type DemoContact = z.infer<typeof DemoContactSchema>;
export type DemoContactList = z.infer<typeof DemoContactListSchema>;
