import { z } from 'zod';
import { component, id } from './common.ts';

/** What the embeddable widget needs to start (`GET /v1/widget/bootstrap`). */

const color = z.string().describe('`#rgb` or `#rrggbb`');

/** The published version's `widget` settings without its allowed origins (the config's `widget` section). */
export const WidgetSettingsSchema = z
  .looseObject({
    title: z.string().optional(),
    greeting: z.string().optional(),
    colors: z
      .looseObject({ primary: color.optional(), background: color.optional(), text: color.optional() })
      .optional(),
    position: z.enum(['bottom-right', 'bottom-left']).optional(),
    suggested_questions: z.array(z.string()).optional(),
    browser_js_eval: z.boolean(),
  })
  .describe('The published version’s `widget` settings, without `allowed_origins`');

export const WidgetBootstrapSchema = component(
  'WidgetBootstrap',
  z.object({
    object: z.literal('widget_bootstrap'),
    agent_id: id,
    widget: WidgetSettingsSchema,
    language: z.enum(['en', 'zh']).nullable(),
    context_variables: z.array(z.string()),
    client_tools: z.array(z.string()),
    handoff: z
      .object({ visitor_button: z.boolean() })
      .describe(
        'Issue 21: whether the widget shows visitors a “talk to a person” button (the agent’s `handoff.visitor_button`)',
      ),
  }),
);

export type WidgetSettings = z.infer<typeof WidgetSettingsSchema>;
export type WidgetBootstrap = z.infer<typeof WidgetBootstrapSchema>;
