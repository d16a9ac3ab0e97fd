import { argumentsValidator } from '@agentry/config';
import { addUsage, emptyUsage, type LanguageModel, type Message, toolCallsOf, type Usage } from '@agentry/llm';

/** What the model read from an answer. */
export type ModelReading =
  | { kind: 'value'; value: unknown }
  | { kind: 'none'; message: string }
  /** The user changed the subject (only offered when the flow allows leaving). */
  | { kind: 'exit' };

export interface ModelExtractionInput {
  model: LanguageModel;
  /** The question the user answered. */
  question: string;
  /** The value wanted: its name, description and JSON Schema. */
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  answer: string;
  allowExit: boolean;
  signal?: AbortSignal;
  /** Corrections after an invalid value before giving up. Default 2. */
  maxCorrections?: number;
}

const SET_VALUE = 'set_value';
const NOT_PROVIDED = 'not_provided';
const CHANGE_SUBJECT = 'change_subject';

/**
 * Asks the model for one value from a user's answer, constrained to the value's JSON Schema: the
 * model must call `set_value`, and an invalid value is sent back with the validation message for it
 * to correct (the loop's self-correction), at most `maxCorrections` times.
 *
 * @example
 * const { reading, usage } = await extractWithModel({ model, question: 'Why?', name: 'reason', schema: { type: 'string' }, answer: 'I am ill', allowExit: true });
 */
export async function extractWithModel(input: ModelExtractionInput): Promise<{ reading: ModelReading; usage: Usage }> {
  const validate = argumentsValidator({ type: 'object', properties: { value: input.schema }, required: ['value'] });
  const tools = [
    {
      name: SET_VALUE,
      description: `Set ${input.name} from the user's answer.`,
      parameters: { type: 'object', properties: { value: input.schema }, required: ['value'] },
    },
    {
      name: NOT_PROVIDED,
      description: 'The answer does not contain the value.',
      parameters: { type: 'object', properties: { reason: { type: 'string' } } },
    },
    ...(input.allowExit
      ? [
          {
            name: CHANGE_SUBJECT,
            description: 'The user no longer answers the question: they ask or talk about something else.',
            parameters: { type: 'object', properties: {} },
          },
        ]
      : []),
  ];
  const system = [
    "You read one value from a user's answer to a form question. Call exactly one tool.",
    `Question: ${input.question}`,
    `Value: ${input.name}${input.description ? ` (${input.description})` : ''}`,
  ].join('\n');
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: input.answer }] }];
  let usage = emptyUsage();
  const maxCorrections = input.maxCorrections ?? 2;
  for (let attempt = 0; attempt <= maxCorrections; attempt++) {
    const response = await input.model.generate(
      { system, messages, tools, toolChoice: 'required', parallelToolCalls: false, temperature: 0 },
      input.signal ? { signal: input.signal } : {},
    );
    usage = addUsage(usage, response.usage);
    const assistant: Message = { role: 'assistant', content: response.content };
    const call = toolCallsOf(assistant)[0];
    if (!call) return { reading: { kind: 'none', message: 'I could not understand that.' }, usage };
    if (call.name === CHANGE_SUBJECT && input.allowExit) return { reading: { kind: 'exit' }, usage };
    if (call.name === NOT_PROVIDED)
      return { reading: { kind: 'none', message: 'I could not find that in your answer.' }, usage };
    const checked = validate(call.arguments);
    if (checked.ok) return { reading: { kind: 'value', value: (checked.value as { value: unknown }).value }, usage };
    const problem = checked.issues.map((i) => i.message).join('; ');
    messages.push(assistant, {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolCallId: call.id,
          toolName: call.name,
          output: { error: 'invalid_arguments', message: problem },
          isError: true,
        },
      ],
    });
    if (attempt === maxCorrections)
      return { reading: { kind: 'none', message: `That is not a valid answer: ${problem}.` }, usage };
  }
  return { reading: { kind: 'none', message: 'I could not understand that.' }, usage };
}
