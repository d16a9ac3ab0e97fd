import type { Message, ToolResultPart } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { EPHEMERAL_PLACEHOLDER } from './ephemeral.ts';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Browse' }] }];

function resultsOf(messages: Message[] | undefined, tool: string): unknown[] {
  return (messages ?? [])
    .flatMap((m) => m.content)
    .filter((p): p is ToolResultPart => p.type === 'tool_result' && p.toolName === tool)
    .map((p) => p.output);
}

describe('ephemeral tool outputs', () => {
  it('keep only the last N outputs of the tool in the prompt; the transcript keeps them all', async () => {
    const tools = createInMemoryTools({
      page_state: { run: ({ n }) => `huge page dump ${n}` },
      note: { run: ({ n }) => `note ${n}` },
    });
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'page_state', arguments: { n: 1 } },
          { name: 'note', arguments: { n: 1 } },
        ],
      },
      { toolCalls: [{ name: 'page_state', arguments: { n: 2 } }] },
      { toolCalls: [{ name: 'page_state', arguments: { n: 3 } }] },
      { text: 'Done browsing.' },
    ]);
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 6,
      ephemeralTools: { page_state: 2 },
    });
    expect(result.status).toBe('completed');
    expect(resultsOf(model.requests[2]?.messages, 'page_state')).toEqual(['huge page dump 1', 'huge page dump 2']);
    expect(resultsOf(model.requests[3]?.messages, 'page_state')).toEqual([
      EPHEMERAL_PLACEHOLDER,
      'huge page dump 2',
      'huge page dump 3',
    ]);
    // Other tools are untouched, and so is the stored transcript.
    expect(resultsOf(model.requests[3]?.messages, 'note')).toEqual(['note 1']);
    expect(resultsOf(result.messages, 'page_state')).toEqual([
      'huge page dump 1',
      'huge page dump 2',
      'huge page dump 3',
    ]);
  });
});
