import type { AgentConfigDocument } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { insertAt, placeholderChoices, splitTemplate } from './placeholders.ts';

const config: AgentConfigDocument = {
  basic_settings: { name: 'A' },
  tools: [
    {
      name: 't',
      description: 'd',
      parameters: { type: 'object', properties: { email: { type: 'string' } } },
      endpoint: { url: 'https://x.test', headers: { Authorization: 'Bearer {{secrets.CRM_TOKEN}}' } },
    },
  ],
  context: [{ name: 'customerId' }],
};

describe('placeholders', () => {
  it('offers parameters, context variables and secrets in use', () => {
    const tokens = placeholderChoices(config, 0).map((c) => c.token);
    expect(tokens).toContain('{{email}}');
    expect(tokens).toContain('{{context.dialogId}}');
    expect(tokens).toContain('{{context.customerId}}');
    expect(tokens).toContain('{{secrets.CRM_TOKEN}}');
  });

  it('marks a misspelled placeholder as unknown', () => {
    const pieces = splitTemplate(
      'to {{emial}} / {{email}} / {{context.dialogId}} / {email}',
      placeholderChoices(config, 0),
    );
    const flags = pieces.filter((p) => p.placeholder).map((p) => [p.placeholder?.name, p.placeholder?.known]);
    expect(flags).toEqual([
      ['emial', false],
      ['email', true],
      ['dialogId', true],
      ['email', true],
    ]);
    expect(pieces.map((p) => p.text).join('')).toBe('to {{emial}} / {{email}} / {{context.dialogId}} / {email}');
  });

  it('inserts at the caret', () => {
    expect(insertAt('ab', '{{x}}', 1)).toEqual({ value: 'a{{x}}b', caret: 6 });
    expect(insertAt('abcd', 'Z', 1, 3)).toEqual({ value: 'aZd', caret: 2 });
  });
});
