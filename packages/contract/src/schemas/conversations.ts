import { z } from 'zod';
import { MAX_MESSAGE_CHARS, PG_INTEGER_MAX } from '../limits.ts';
import { component, id, list, RunStatusSchema, timestamp } from './common.ts';
import { CitationSchema } from './knowledge.ts';

/** Conversations and their messages: the answers of `/v1/conversations` and the bodies it takes. */

/** One part of a message: text, reasoning, a tool call or a tool's result. */
export const MessagePartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    tool_call_id: z.string(),
    name: z.string(),
    output: z.unknown(),
    is_error: z.boolean(),
  }),
]);

export const MessageSchema = component(
  'Message',
  z.object({
    id,
    object: z.literal('message'),
    seq: z.int(),
    role: z.enum(['user', 'assistant', 'tool']),
    run_id: id.nullable(),
    content: z.array(MessagePartSchema),
    citations: z
      .array(CitationSchema)
      .describe('An answer’s knowledge sources, by the `[n]` markers of its text (empty when it cites none)'),
    created_at: timestamp,
  }),
);

export const ConversationSchema = component(
  'Conversation',
  z.object({
    id,
    object: z.literal('conversation'),
    agent_id: id,
    agent_version: z.int().nullable().describe('The pinned version, or null to follow the published one'),
    context: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ConversationDetailSchema = component(
  'ConversationDetail',
  ConversationSchema.extend({
    messages: z.array(MessageSchema),
    quick_replies: z
      .array(z.string())
      .optional()
      .describe('The answers an active flow offers as buttons for its pending question (issue 19)'),
  }),
);
export const ConversationListSchema = component(
  'ConversationList',
  list(
    ConversationSchema.extend({
      last_run_status: RunStatusSchema.nullable().describe('The latest run’s status; null before the first message'),
      has_error: z.boolean().describe('Whether any run of the conversation failed'),
      preview: z
        .string()
        .nullable()
        .describe('The start (200 characters) of the first user message’s text; null before one'),
      end_user_id: z
        .string()
        .nullable()
        .describe(
          'Who the visitor is: the conversation’s `context.userId` (a verified end user with a publishable key); null for an anonymous visitor',
        ),
    }),
  ),
);

export type MessagePart = z.infer<typeof MessagePartSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Conversation = z.infer<typeof ConversationSchema>;
/** `GET /v1/conversations/{id}`: the conversation with its messages. */
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;
export type ConversationList = z.infer<typeof ConversationListSchema>;
/** A conversation in `GET /v1/conversations`: with its latest run's status, whether a run failed, its first user message's start and its end user. */
export type ConversationListItem = ConversationList['data'][number];

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/conversations`. */
export const NewConversationBody = z.strictObject({
  agent_id: z.string(),
  agent_version: z.number().int().positive().max(PG_INTEGER_MAX).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});
export type NewConversationBody = z.input<typeof NewConversationBody>;

/** `POST /v1/conversations/{id}/messages`. */
export const NewMessageBody = z.strictObject({ content: z.string().trim().min(1).max(MAX_MESSAGE_CHARS) });
export type NewMessageBody = z.input<typeof NewMessageBody>;
