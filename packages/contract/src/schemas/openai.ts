import { z } from 'zod';
import { component, id } from './common.ts';

/** The OpenAI-compatible routes' answers (`/v1/chat/completions`, `/v1/models`), in OpenAI's shape. */

export const ChatCompletionSchema = component(
  'ChatCompletion',
  z.looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.int(),
    model: z.string(),
    choices: z.array(z.looseObject({ index: z.int(), message: z.looseObject({ role: z.string() }) })),
    usage: z.looseObject({}).optional(),
  }),
);

export const ModelListSchema = component(
  'ModelList',
  z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        id,
        object: z.literal('model'),
        created: z.int(),
        owned_by: z.string(),
        name: z.string(),
        published_version: z.int().nullable(),
        latest_version: z.int(),
      }),
    ),
  }),
);

export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
export type ModelList = z.infer<typeof ModelListSchema>;
