import { z } from 'zod';
import { MAX_MESSAGE_CHARS } from '../limits.ts';
import { component, id, list, timestamp } from './common.ts';
import { ConversationModeSchema, HandoffStateSchema, MessageSchema } from './conversations.ts';

/** Human handoff and the inbox (issue 21): the answers and bodies of the handoff routes. */

const NOTE_CHARS = 4000;

/** One conversation of the inbox. */
export const InboxItemSchema = component(
  'InboxItem',
  z.object({
    object: z.literal('inbox_item'),
    conversation_id: id,
    agent_id: id,
    ...HandoffStateSchema.shape,
    assigned_name: z.string().nullable().describe('The display name of the member holding it'),
    waiting_seconds: z.int().describe('Seconds since the mode last changed (how long it has waited, or been held)'),
    unread_count: z.int().describe('The visitor’s messages after the last answer (a person’s or the model’s)'),
    last_message: z.string().nullable().describe('The start (200 characters) of the last message’s text'),
  }),
);
export const InboxListSchema = component('InboxList', list(InboxItemSchema));

/** A visitor’s message people hold: stored, no run started. */
export const HeldMessageSchema = component(
  'HeldMessage',
  z.object({
    object: z.literal('held_message'),
    conversation_id: id,
    mode: ConversationModeSchema,
    message: MessageSchema,
  }),
);

/** The outcome of asking for a person. */
export const HandoffResultSchema = component(
  'HandoffResult',
  z.object({
    object: z.literal('handoff'),
    conversation_id: id,
    status: z
      .enum(['pending_human', 'already', 'unavailable'])
      .describe(
        '`pending_human`: people are asked; `already`: people hold it or were asked; `unavailable`: nobody can take it now',
      ),
    reason: z.enum(['outside_business_hours', 'no_member_available']).nullable(),
    message: z.string().describe('What the visitor is told (the agent’s waiting or unavailable message)'),
    state: HandoffStateSchema,
  }),
);

/** A transition or an internal note of a conversation. */
export const ConversationEventSchema = component(
  'ConversationEvent',
  z.object({
    id,
    object: z.literal('conversation_event'),
    kind: z.enum(['transition', 'note']),
    from: ConversationModeSchema.nullable(),
    to: ConversationModeSchema.nullable(),
    actor: z.object({
      type: z.enum(['user', 'api_key', 'model', 'flow', 'visitor', 'system']),
      id: z.string().nullable(),
      name: z.string().nullable(),
    }),
    assigned_to: id.nullable(),
    note: z.string().nullable(),
    created_at: timestamp,
  }),
);
export const ConversationEventListSchema = component(
  'ConversationEventList',
  z.object({ object: z.literal('list'), data: z.array(ConversationEventSchema) }),
);

/** A member’s availability for handoffs. */
export const MemberAvailabilitySchema = component(
  'MemberAvailability',
  z.object({
    user_id: id,
    name: z.string(),
    role: z.enum(['owner', 'editor', 'viewer']),
    available: z.boolean(),
  }),
);
export const AvailabilitySchema = component(
  'Availability',
  z.object({
    object: z.literal('availability'),
    members: z.array(MemberAvailabilitySchema),
    open_now: z.boolean().describe('Inside business hours now (always, without business hours)'),
    available_now: z.boolean().describe('A handoff now would reach someone: open, and an owner or editor available'),
  }),
);

export const BusinessHoursSchema = component(
  'BusinessHours',
  z.object({
    object: z.literal('business_hours'),
    time_zone: z.string().nullable().describe('IANA time zone; null: no business hours (always open)'),
    intervals: z.array(z.object({ day: z.int(), start: z.string(), end: z.string() })),
  }),
);

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/conversations/{id}/handoff`. */
export const HandoffBody = z.strictObject({
  reason: z.string().trim().max(500).optional(),
  summary: z.string().trim().max(NOTE_CHARS).optional(),
  /** Secret keys and members: ask even when nobody is available (default false). */
  force: z.boolean().optional(),
});
export type HandoffBody = z.input<typeof HandoffBody>;

/** `POST /v1/conversations/{id}/assign`: no `user_id` = the caller claims it. */
export const AssignBody = z.strictObject({
  user_id: z.string().optional(),
  note: z.string().trim().max(NOTE_CHARS).optional(),
});
export type AssignBody = z.input<typeof AssignBody>;

/** `POST /v1/conversations/{id}/human-messages`. */
export const HumanMessageBody = z.strictObject({
  content: z.string().trim().min(1).max(MAX_MESSAGE_CHARS),
  /** API keys only: the name shown to the visitor (default: the holding member’s). */
  author_name: z.string().trim().min(1).max(100).optional(),
});
export type HumanMessageBody = z.input<typeof HumanMessageBody>;

/** `POST /v1/conversations/{id}/notes`. */
export const NoteBody = z.strictObject({ content: z.string().trim().min(1).max(NOTE_CHARS) });
export type NoteBody = z.input<typeof NoteBody>;

/** `POST /v1/conversations/{id}/release` and `/resolve`. */
export const ReleaseBody = z.strictObject({ note: z.string().trim().max(NOTE_CHARS).optional() });
export type ReleaseBody = z.input<typeof ReleaseBody>;

/** `PUT /v1/inbox/availability`: no `user_id` = the signed-in member. */
export const AvailabilityBody = z.strictObject({ available: z.boolean(), user_id: z.string().optional() });
export type AvailabilityBody = z.input<typeof AvailabilityBody>;

/** `PUT /v1/inbox/business-hours`: `time_zone` null clears them (always open). */
export const BusinessHoursBody = z.strictObject({
  time_zone: z.string().max(100).nullable(),
  intervals: z
    .array(z.strictObject({ day: z.int().min(0).max(6), start: z.string().max(5), end: z.string().max(5) }))
    .max(100)
    .default([]),
});
export type BusinessHoursBody = z.input<typeof BusinessHoursBody>;

export type InboxItem = z.infer<typeof InboxItemSchema>;
export type InboxList = z.infer<typeof InboxListSchema>;
export type HeldMessage = z.infer<typeof HeldMessageSchema>;
export type HandoffResult = z.infer<typeof HandoffResultSchema>;
export type ConversationEvent = z.infer<typeof ConversationEventSchema>;
export type Availability = z.infer<typeof AvailabilitySchema>;
export type BusinessHours = z.infer<typeof BusinessHoursSchema>;
