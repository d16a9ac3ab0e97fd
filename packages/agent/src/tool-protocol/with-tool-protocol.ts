import { randomUUID } from 'node:crypto';
import type {
  CallOptions,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  ReasoningPart,
  StreamEvent,
  TextPart,
  ToolCallPart,
} from '@agentry/llm';
import { BlockScanner } from './block-scanner.ts';
import { jsonProfile } from './json-profile.ts';
import type { ProtocolProfile } from './protocol-profile.ts';
import { renderHistory } from './render-history.ts';
import { xmlProfile } from './xml-profile.ts';

export type ToolProtocolName = 'json' | 'xml';

const PROFILES: Record<ToolProtocolName, ProtocolProfile> = { json: jsonProfile, xml: xmlProfile };

/**
 * Gives tool calling to a model without native support (seed 004 §4 prompt profiles): native tools
 * are removed from requests, the protocol and tool list go at the top of the system prompt, earlier
 * calls and results are rendered in the profile's templates, and calls are parsed out of the
 * model's text (fenced or not, several per message; unreadable ones come back as calls with
 * `rawArguments` so the loop reports them to the model). Call syntax is never streamed as text.
 *
 * @example
 * const model = withToolProtocol(createOpenAIModel({ apiKey: '', baseURL, model: 'llama3', provider: 'openai_compatible' }), 'xml');
 * await runAgent({ model, tools, system, history, maxSteps: 8 });
 */
export function withToolProtocol(model: LanguageModel, protocol: ToolProtocolName): LanguageModel {
  const profile = PROFILES[protocol];
  const newId = () => `call_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

  async function generate(request: ModelRequest, options?: CallOptions): Promise<ModelResponse> {
    const response = await model.generate(toProtocolRequest(request, profile), options);
    const scanner = new BlockScanner(profile);
    for (const part of response.content) if (part.type === 'text') scanner.push(part.text);
    scanner.end();
    return withParsedCalls(response, scanner, profile, newId);
  }

  async function* stream(request: ModelRequest, options?: CallOptions): AsyncGenerator<StreamEvent> {
    const scanner = new BlockScanner(profile);
    let response: ModelResponse | undefined;
    let sawText = false;
    let native = 0;
    for await (const event of model.stream(toProtocolRequest(request, profile), options)) {
      if (event.type === 'text-delta') {
        sawText = true;
        const visible = scanner.push(event.delta);
        if (visible) yield { type: 'text-delta', delta: visible };
      } else if (event.type === 'finish') response = event.response;
      else {
        if (event.type === 'tool-call-end') native++;
        yield event;
      }
    }
    if (!response) return;
    // Some adapters put text only in the final response; scan it then.
    if (!sawText) for (const part of response.content) if (part.type === 'text') scanner.push(part.text);
    const rest = scanner.end();
    if (rest) yield { type: 'text-delta', delta: rest };
    const parsed = withParsedCalls(response, scanner, profile, newId);
    yield* callEvents(parsed, native);
    yield { type: 'finish', response: parsed };
  }

  return { provider: model.provider, modelId: model.modelId, generate, stream };
}

/**
 * The request the wrapped model gets: no native tools, protocol text first in the system prompt,
 * calls and results in the history rendered as text.
 *
 * @example
 * toProtocolRequest({ system: 'Be brief', messages, tools }, jsonProfile).system; // '### TOOL_USE_PROTOCOL…Be brief'
 */
export function toProtocolRequest(request: ModelRequest, profile: ProtocolProfile): ModelRequest {
  const { tools, toolChoice, parallelToolCalls, ...rest } = request;
  const choice = toolChoice ?? 'auto';
  const protocol =
    tools && tools.length > 0 && choice !== 'none'
      ? profile.instructions(tools, choice, parallelToolCalls !== false)
      : '';
  const system = [protocol, request.system ?? ''].filter(Boolean).join('\n\n');
  return { ...rest, ...(system ? { system } : {}), messages: renderHistory(request.messages, profile) };
}

function withParsedCalls(
  response: ModelResponse,
  scanner: BlockScanner,
  profile: ProtocolProfile,
  newId: () => string,
): ModelResponse {
  const calls = scanner.blocks.flatMap((body) => profile.parseBlock(body, newId));
  const text = scanner.visibleText();
  const reasoning = response.content.filter((p): p is ReasoningPart => p.type === 'reasoning');
  // Native calls should not appear (tools were removed), but are kept if a model sends them anyway.
  const native = response.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
  calls.unshift(...native);
  const content: Array<TextPart | ReasoningPart | ToolCallPart> = [
    ...reasoning,
    ...(text.trim() ? [{ type: 'text' as const, text }] : []),
    ...calls,
  ];
  return { ...response, content, finishReason: calls.length > 0 ? 'tool_calls' : response.finishReason };
}

/** Stream events for the parsed calls; the first `streamed` calls (native ones) were already forwarded. */
function* callEvents(response: ModelResponse, streamed: number): Generator<StreamEvent> {
  const calls = response.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
  for (let index = streamed; index < calls.length; index++) {
    const part = calls[index]!;
    yield { type: 'tool-call-start', index, id: part.id, name: part.name };
    yield { type: 'tool-call-delta', index, id: part.id, delta: part.rawArguments ?? JSON.stringify(part.arguments) };
    yield { type: 'tool-call-end', index, toolCall: part };
  }
}
