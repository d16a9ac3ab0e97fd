import type { LanguageModel, Message, ModelRequest, ModelResponse, StreamEvent, ToolDefinition } from '@agentry/llm';

/** The demo model's provider and model names, in events, traces and reply metadata. */
export const DEMO_PROVIDER = 'demo';
export const DEMO_MODEL_ID = 'agentry-demo';

/** Said after every answer of the demo model, so nobody mistakes it for an AI. */
export const DEMO_NOTICE =
  "(Agentry's built-in demo model answered: no AI model is configured. Set OPENAI_API_KEY or ANTHROPIC_API_KEY, or add a provider in the dashboard's settings, for real conversations.)";

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;

/**
 * A built-in stand-in for a model, for a first start with no model account anywhere: it follows
 * the agent's action books just well enough to show a real tool call end to end — a message with an
 * email address calls the first tool that takes an email, and the tool's answer is reported back —
 * and says plainly, in every answer, that it is not an AI. Deterministic; no network.
 *
 * @example
 * const model = createDemoModel();
 * const res = await model.generate({ messages: [{ role: 'user', content: [{ type: 'text', text: 'book me: kim@example.com' }] }], tools });
 */
export function createDemoModel(): LanguageModel {
  return {
    provider: DEMO_PROVIDER,
    modelId: DEMO_MODEL_ID,
    honoursAbort: false,
    async generate(request) {
      return respond(request);
    },
    async *stream(request, options) {
      const response = respond(request);
      for (const [index, part] of response.content.entries()) {
        options?.signal?.throwIfAborted();
        if (part.type === 'text') {
          // Word by word, as a model streams.
          for (const word of part.text.match(/\S+\s*/g) ?? []) yield { type: 'text-delta', delta: word } as StreamEvent;
        } else if (part.type === 'tool_call') {
          yield { type: 'tool-call-start', index, id: part.id, name: part.name };
          yield { type: 'tool-call-end', index, toolCall: part };
        }
      }
      yield { type: 'finish', response };
    },
  };
}

function respond(request: ModelRequest): ModelResponse {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return text(request, reportResults(last));
  const said = last ? textOf(last) : '';
  const email = said.match(EMAIL)?.[0];
  const tool = email ? emailTool(request.tools ?? []) : undefined;
  if (email && tool && request.toolChoice !== 'none') {
    const call = {
      type: 'tool_call' as const,
      id: `demo_${request.messages.length}`,
      name: tool.name,
      arguments: argumentsFor(tool, email),
    };
    return { content: [call], finishReason: 'tool_calls', usage: usage(request, 20), modelId: DEMO_MODEL_ID };
  }
  const tools = (request.tools ?? []).filter((t) => !t.name.includes('__'));
  const hint = emailTool(tools)
    ? `Give me an email address and I will call ${emailTool(tools)!.name} with it, as this agent's action books say.`
    : tools.length > 0
      ? `This agent's tools are ${tools.map((t) => t.name).join(', ')}; I can only call tools that take an email address.`
      : 'This agent has no tools I can call.';
  return text(request, `Hello! ${hint}`);
}

function reportResults(message: Message): string {
  const lines = message.content.flatMap((part) => {
    if (part.type !== 'tool_result') return [];
    const output = typeof part.output === 'string' ? part.output : JSON.stringify(part.output);
    const short = output.length > 300 ? `${output.slice(0, 300)}…` : output;
    return part.isError
      ? [`The tool ${part.toolName} answered with an error: ${short}`]
      : [`Done: I called ${part.toolName}, and it answered ${short}`];
  });
  return lines.join('\n');
}

/** The first tool with an `email` argument (flows and MCP tools, named with `__`, are left alone). */
function emailTool(tools: readonly ToolDefinition[]): ToolDefinition | undefined {
  return tools.find((t) => !t.name.includes('__') && Object.keys(propertiesOf(t)).some((k) => /e-?mail/i.test(k)));
}

/** The email for its argument; other required strings get a plain stand-in (the tool validates them). */
function argumentsFor(tool: ToolDefinition, email: string): Record<string, unknown> {
  const properties = propertiesOf(tool);
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (/e-?mail/i.test(name)) args[name] = email;
    else if (required.includes(name) && (schema as { type?: unknown }).type === 'string') {
      args[name] = /name/i.test(name) ? nameFrom(email) : 'demo';
    }
  }
  return args;
}

function nameFrom(email: string): string {
  const local = email.split('@')[0] ?? '';
  return local
    .split(/[._-]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

function propertiesOf(tool: ToolDefinition): Record<string, unknown> {
  const properties = tool.parameters.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, unknown>) : {};
}

function text(request: ModelRequest, body: string): ModelResponse {
  const answer = `${body}\n\n${DEMO_NOTICE}`;
  return {
    content: [{ type: 'text', text: answer }],
    finishReason: 'stop',
    usage: usage(request, Math.ceil(answer.length / 4)),
    modelId: DEMO_MODEL_ID,
  };
}

function textOf(message: Message): string {
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** A rough count (4 characters a token), so budgets and usage pages see something plausible. */
function usage(request: ModelRequest, outputTokens: number) {
  const input = (request.system?.length ?? 0) + JSON.stringify(request.messages).length;
  return { inputTokens: Math.ceil(input / 4), outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
}
