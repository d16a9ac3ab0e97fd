import { createHash } from 'node:crypto';
import type { ToolExecutor } from '@agentry/agent';
import { type Message, textOf } from '@agentry/llm';
import { SEARCH_KNOWLEDGE } from './knowledge-sources.ts';
import type { ProcessorContext } from './processor-context.ts';
import type { WriteBehind } from './write-behind.ts';

/** Call ids of the searches `auto` mode makes before the model's first call (`ks_…`). */
const AUTO_CALL = 'ks_';

export interface AutoRetrievalInputs {
  run: { id: string };
  /** Runs `search_knowledge` behind the recording executor (a resumed run replays it). */
  search: ToolExecutor;
  history: readonly Message[];
  writes: WriteBehind;
  signal: AbortSignal;
}

/**
 * `auto` mode: searches the user's message before the model's first call of a run and puts the
 * search in the transcript as a `search_knowledge` call and its result, so the model reads the hits
 * in context, traces show them and a resumed run finds them. The call id derives from the run and
 * the message's position: a run resumed after a crash replays the search from its record. Nothing
 * happens when the transcript does not end with the user's message (a resumed run past it).
 *
 * @example
 * const history2 = await retrieveBeforeAnswer(ctx, { run, search, history, writes, signal });
 */
export async function retrieveBeforeAnswer(ctx: ProcessorContext, inputs: AutoRetrievalInputs): Promise<Message[]> {
  const { run, history, writes } = inputs;
  const last = history.at(-1);
  if (last?.role !== 'user') return [...history];
  const query = textOf(last).trim();
  if (!query) return [...history];
  const id = `${AUTO_CALL}${createHash('sha256')
    .update(`${run.id}:${history.length - 1}`)
    .digest('hex')
    .slice(0, 24)}`;
  const call = { type: 'tool_call' as const, id, name: SEARCH_KNOWLEDGE, arguments: { query } };
  await ctx.publish(run.id, { type: 'tool-call', step: 0, toolCall: call });
  const result = await inputs.search.execute(call, { signal: inputs.signal });
  await ctx.publish(run.id, {
    type: 'tool-result',
    step: 0,
    toolCallId: id,
    toolName: SEARCH_KNOWLEDGE,
    output: result.output,
    isError: result.isError,
    ...(result.errorCode ? { errorCode: result.errorCode } : {}),
  });
  const pair: Message[] = [
    { role: 'assistant', content: [call] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolCallId: id,
          toolName: SEARCH_KNOWLEDGE,
          output: result.output,
          ...(result.isError ? { isError: true } : {}),
        },
      ],
    },
  ];
  // Stored with the model's first message (or the answer): a crash before then replays the search.
  writes.defer({ messages: pair });
  return [...history, ...pair];
}
