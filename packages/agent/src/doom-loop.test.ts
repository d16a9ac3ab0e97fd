import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Find it' }] }];

describe('doom-loop detection', () => {
  it('does not run the third identical call (keys in any order); the model gets a notice and can recover', async () => {
    const tools = createInMemoryTools({ find: { run: () => 'nothing' } });
    const model = createScriptedModel([
      { toolCalls: [{ name: 'find', arguments: { q: 'a', limit: 1 } }] },
      { toolCalls: [{ name: 'find', arguments: { limit: 1, q: 'a' } }] },
      { toolCalls: [{ name: 'find', arguments: { q: 'a', limit: 1 } }] },
      { text: 'It cannot be found.' },
    ]);
    const log = eventLog();
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 10, onEvent: log.onEvent });
    expect(tools.calls).toHaveLength(2);
    expect(result.status).toBe('completed');
    expect(result.messages[5]?.content[0]).toMatchObject({ isError: true, output: { error: 'repeated_call' } });
    expect(log.of('notice')[0]).toMatchObject({ kind: 'doom-loop', step: 2 });
  });

  it('ends the run with doom_loop when the model persists', async () => {
    const tools = createInMemoryTools({ find: { run: () => 'nothing' } });
    const model = createScriptedModel([], { fallback: { toolCalls: [{ name: 'find', arguments: { q: 'a' } }] } });
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 20, doomLoopThreshold: 3 });
    expect(result.status).toBe('doom_loop');
    expect(result.steps).toHaveLength(4);
    expect(tools.calls).toHaveLength(2);
  });

  it('different arguments are not a loop', async () => {
    const tools = createInMemoryTools({ find: { run: () => 'nothing' } });
    const model = createScriptedModel([], {
      fallback: (_r, i) => (i < 5 ? { toolCalls: [{ name: 'find', arguments: { page: i } }] } : { text: 'end' }),
    });
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 20 });
    expect(result.status).toBe('completed');
    expect(tools.calls).toHaveLength(5);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });
});
