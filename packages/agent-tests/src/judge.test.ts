import { createScriptedModel } from '@agentry/agent/testing';
import { describe, expect, it } from 'vitest';
import { createJudge } from './judge.ts';

const input = { rubric: 'Apologises', transcript: 'User: my order broke', reply: 'Sorry! Refunded.' };

describe('the rubric judge', () => {
  it('forces the verdict tool and reads pass or fail with the reason', async () => {
    const model = createScriptedModel(
      [
        {
          toolCalls: [{ name: 'verdict', arguments: { pass: true, reason: 'It says sorry.' } }],
          usage: { inputTokens: 40, outputTokens: 9 },
        },
        { toolCalls: [{ name: 'verdict', arguments: { pass: false, reason: '  ' } }] },
      ],
      { provider: 'openai', modelId: 'judge-1' },
    );
    const judge = createJudge(model);
    expect(await judge(input)).toMatchObject({
      passed: true,
      reason: 'It says sorry.',
      provider: 'openai',
      model: 'judge-1',
      usage: { inputTokens: 40 },
    });
    expect(await judge(input)).toMatchObject({ passed: false, reason: '' });
    const request = model.requests[0]!;
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'verdict' });
    expect(JSON.stringify(request.messages)).toContain('Reply to grade:\\nSorry! Refunded.\\n\\nRubric:\\nApologises');
  });

  it('reads a JSON verdict from text, and fails the rubric when there is no verdict at all', async () => {
    const model = createScriptedModel([
      { text: 'Verdict: {"pass": true, "reason": "ok"}' },
      { text: 'I think it is fine.' },
    ]);
    const judge = createJudge(model);
    expect(await judge(input)).toMatchObject({ passed: true, reason: 'ok' });
    expect(await judge(input)).toMatchObject({ passed: false, reason: 'The judge model gave no verdict' });
  });
});
