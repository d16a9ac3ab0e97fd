import type { AgentConfigDocument } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { blankConfig } from './agent-config.ts';
import { baseChoices, readKnowledge, toggleBase, withSetting } from './knowledge-config.ts';

const withKnowledge = (knowledge: unknown) => ({ ...blankConfig(), knowledge }) as unknown as AgentConfigDocument;

describe('the knowledge block', () => {
  it('reads what the config holds, loosely', () => {
    expect(readKnowledge(blankConfig())).toBeUndefined();
    expect(readKnowledge(withKnowledge({ bases: ['FAQ', 3], mode: 'auto', top_k: 4 }))).toEqual({
      bases: ['FAQ'],
      mode: 'auto',
      top_k: 4,
    });
    expect(readKnowledge(withKnowledge({ mode: 'sometimes' }))).toEqual({});
    expect(readKnowledge(withKnowledge([]))).toBeUndefined();
  });

  it('choosing a base writes the whole block with defaults; dropping the last removes it', () => {
    const one = toggleBase(undefined, 'Handbook', true);
    expect(one).toEqual({ bases: ['Handbook'], mode: 'tool', top_k: 5 });
    const two = toggleBase({ ...one, mode: 'auto', top_k: 3 }, 'FAQ', true);
    expect(two).toEqual({ bases: ['Handbook', 'FAQ'], mode: 'auto', top_k: 3 });
    expect(toggleBase(two, 'FAQ', true)).toEqual(two);
    expect(toggleBase(two, 'Handbook', false)).toEqual({ bases: ['FAQ'], mode: 'auto', top_k: 3 });
    expect(toggleBase({ bases: ['FAQ'] }, 'FAQ', false)).toBeUndefined();
  });

  it('mode and number of sources change only a block with bases', () => {
    expect(withSetting(undefined, { mode: 'auto' })).toBeUndefined();
    expect(withSetting({ bases: [] }, { top_k: 3 })).toBeUndefined();
    expect(withSetting({ bases: ['FAQ'] }, { mode: 'auto' })).toEqual({ bases: ['FAQ'], mode: 'auto', top_k: 5 });
    expect(withSetting({ bases: ['FAQ'], mode: 'auto', top_k: 2 }, { top_k: 8 })).toEqual({
      bases: ['FAQ'],
      mode: 'auto',
      top_k: 8,
    });
  });

  it('offers the tenant’s bases ticked by name or id, then the references no base has', () => {
    const bases = [
      { id: 'b1', name: 'FAQ' },
      { id: 'b2', name: 'Handbook' },
    ];
    expect(baseChoices(bases, ['b1', 'Old', 'Old'])).toEqual([
      { name: 'FAQ', ref: 'b1', chosen: true, missing: false },
      { name: 'Handbook', ref: 'Handbook', chosen: false, missing: false },
      { name: 'Old', ref: 'Old', chosen: true, missing: true },
    ]);
    expect(baseChoices([], [])).toEqual([]);
  });
});
