import { emptyUsage, type LanguageModel, type Usage } from '@agentry/llm';

/** A rubric's verdict: pass or fail with the judge's reason, and what judging cost. */
export interface Verdict {
  passed: boolean;
  reason: string;
  usage: Usage;
  provider: string;
  model: string;
}

/** Judges a reply against a rubric in plain words. */
export type Judge = (input: { rubric: string; transcript: string; reply: string }) => Promise<Verdict>;

const VERDICT_TOOL = 'verdict';

const SYSTEM = [
  'You grade one reply of a customer-facing assistant against a rubric.',
  'Read the conversation, then the reply, then the rubric. The reply passes only if it does everything the rubric asks.',
  `Answer by calling the ${VERDICT_TOOL} tool once: pass true or false, and a one-sentence reason naming what the reply did or failed to do.`,
].join('\n');

/**
 * A judge over any model of the provider layer: one model call, the verdict as a forced tool call
 * (`verdict {pass, reason}`), or a JSON object in the text for models that answer so. No verdict
 * at all fails the rubric and says so.
 *
 * @example
 * const judge = createJudge(model);
 * const { passed, reason } = await judge({ rubric: 'Apologises and offers a refund', transcript, reply });
 */
export function createJudge(model: LanguageModel, options: { signal?: AbortSignal } = {}): Judge {
  return async ({ rubric, transcript, reply }) => {
    const response = await model.generate(
      {
        system: SYSTEM,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'text',
                text: `Conversation:\n${transcript}\n\nReply to grade:\n${reply || '(no reply)'}\n\nRubric:\n${rubric}`,
              },
            ],
          },
        ],
        tools: [
          {
            name: VERDICT_TOOL,
            description: 'Record whether the reply passes the rubric.',
            parameters: {
              type: 'object',
              properties: { pass: { type: 'boolean' }, reason: { type: 'string' } },
              required: ['pass', 'reason'],
              additionalProperties: false,
            },
          },
        ],
        toolChoice: { type: 'tool', name: VERDICT_TOOL },
        temperature: 0,
        maxOutputTokens: 400,
      },
      options.signal ? { signal: options.signal } : {},
    );
    const base = { usage: response.usage ?? emptyUsage(), provider: model.provider, model: model.modelId };
    const call = response.content.find((p) => p.type === 'tool_call' && p.name === VERDICT_TOOL);
    const verdict = readVerdict(
      call?.type === 'tool_call'
        ? call.arguments
        : parseJsonObject(response.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')),
    );
    if (!verdict) return { ...base, passed: false, reason: 'The judge model gave no verdict' };
    return { ...base, ...verdict };
  };
}

function readVerdict(value: unknown): { passed: boolean; reason: string } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { pass, reason } = value as { pass?: unknown; reason?: unknown };
  if (typeof pass !== 'boolean') return undefined;
  return { passed: pass, reason: typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 1000) : '' };
}

function parseJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
