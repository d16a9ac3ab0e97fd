import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Research and report' }] }];
const tools = createInMemoryTools({ search: { run: () => 'three results' } });

describe('requireDoneTool', () => {
  it('offers a done tool and completes with its answer', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'search', arguments: { q: 'x' } }] },
      { toolCalls: [{ id: 'd1', name: 'done', arguments: { answer: 'Three results found.' } }] },
    ]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 5, requireDoneTool: true });
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['search', 'done']);
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('Three results found.');
    // The done call is answered (valid transcript) and the answer also appears as assistant text.
    expect(result.messages.slice(-2)).toEqual([
      {
        role: 'tool',
        content: [{ type: 'tool_result', toolCallId: 'd1', toolName: 'done', output: 'The task is complete.' }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Three results found.' }] },
    ]);
    expect(tools.calls.every((c) => c.name !== 'done')).toBe(true);
  });

  it('nudges a model that answers without calling done, and it continues', async () => {
    const model = createScriptedModel([
      { text: 'I think I am finished.' },
      { toolCalls: [{ name: 'done', arguments: { answer: 'Finished.' } }] },
    ]);
    const log = eventLog();
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 5,
      requireDoneTool: true,
      onEvent: log.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('Finished.');
    expect(log.of('notice')[0]).toMatchObject({ kind: 'done-nudge' });
    const lastUser = model.requests[1]?.messages.at(-1);
    expect(lastUser?.role).toBe('user');
    expect(JSON.stringify(lastUser)).toContain('`done`');
  });

  it('the nudges are bounded: then the run ends with done_not_called', async () => {
    const model = createScriptedModel([], { fallback: { text: 'Here you go.' } });
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 10,
      requireDoneTool: true,
      maxDoneNudges: 2,
    });
    expect(result.status).toBe('done_not_called');
    expect(model.requests).toHaveLength(3);
    expect(result.finalText).toBe('Here you go.');
  });

  it('a done call without an answer gets an invalid_arguments result to correct', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'done', arguments: { result: 'x' } }] },
      { toolCalls: [{ name: 'done', arguments: { answer: 'x' } }] },
    ]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 5, requireDoneTool: true });
    expect(result.messages[1]?.content[0]).toMatchObject({ isError: true, output: { error: 'invalid_arguments' } });
    expect(result.status).toBe('completed');
  });

  it('runs the other calls of the step before finishing', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'search', arguments: { q: 'last' } },
          { name: 'done', arguments: { answer: 'ok' } },
        ],
      },
    ]);
    const own = createInMemoryTools({ search: { run: () => 'r' } });
    const result = await runAgent({ model, tools: own, system: '', history, maxSteps: 5, requireDoneTool: true });
    expect(result.status).toBe('completed');
    expect(own.calls).toHaveLength(1);
  });

  it('the done tool name can be changed', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'finish', arguments: { answer: 'y' } }] }]);
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 2,
      requireDoneTool: true,
      doneToolName: 'finish',
    });
    expect(result.finalText).toBe('y');
  });
});
