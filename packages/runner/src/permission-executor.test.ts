import type { ToolExecutor } from '@agentry/agent';
import { compileAgent, loadAgentConfig } from '@agentry/config';
import type { ToolCallPart } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { inputKind } from './pending-input.ts';
import { PERMISSION_DENIED, withPermissions } from './permission-executor.ts';

const agent = (() => {
  const { config, hash } = loadAgentConfig({
    basic_settings: { name: 'Desk' },
    require_done_tool: true,
    tools: [
      {
        name: 'refund_order',
        description: 'Refund',
        approval: 'always',
        parameters: { type: 'object', properties: { amount: { type: 'number' } } },
        endpoint: { url: 'https://api.example.com/refunds', method: 'POST' },
      },
      { name: 'pick_file', description: 'Pick a file in the browser', type: 'client' },
      { name: 'open_form', description: 'Open a form in the browser', type: 'client' },
    ],
    permissions: [
      { tool: 'refund_*', when: { properties: { amount: { maximum: 10 } }, required: ['amount'] }, action: 'allow' },
      { tool: 'pick_*', action: 'deny', message: 'No files.' },
      { tool: 'open_*', action: 'ask' },
      { tool: '*', when: { required: ['everything'] }, action: 'ask' },
    ],
  });
  return compileAgent(config, hash);
})();

const callOf = (name: string, args: Record<string, unknown> = {}): ToolCallPart => ({
  type: 'tool_call',
  id: `call_${name}`,
  name,
  arguments: args,
});

describe('inputKind under permission rules', () => {
  it('asks per call: an allow rule lifts approval: always, the default still asks', () => {
    expect(inputKind(agent, callOf('refund_order', { amount: 5 }))).toBeUndefined();
    expect(inputKind(agent, callOf('refund_order', { amount: 50 }))).toBe('approval');
  });

  it('a denied client tool waits for nobody; an asked one waits for the browser as before', () => {
    expect(inputKind(agent, callOf('pick_file'))).toBeUndefined();
    expect(inputKind(agent, callOf('open_form'))).toBe('client');
  });

  it('never asks about the built-in done tool, whatever the rules say', () => {
    expect(inputKind(agent, callOf('done', { everything: true }))).toBeUndefined();
    expect(inputKind(agent, callOf('crm__x', { everything: true }))).toBe('approval');
  });
});

describe('withPermissions', () => {
  it('answers a denied call with the rule message and never reaches the executor behind', async () => {
    const sent: string[] = [];
    const inner: ToolExecutor = {
      definitions: () => [],
      execute: async (call) => {
        sent.push(call.name);
        return { output: 'ran', isError: false };
      },
    };
    const tools = withPermissions(agent, inner);
    expect(await tools.execute(callOf('pick_file'))).toMatchObject({
      isError: true,
      errorCode: PERMISSION_DENIED,
      output: { error: PERMISSION_DENIED, message: 'No files.' },
    });
    expect(await tools.execute(callOf('refund_order', { amount: 50 }))).toMatchObject({ output: 'ran' });
    expect(sent).toEqual(['refund_order']);
  });
});
