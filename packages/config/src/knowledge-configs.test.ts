import { describe, expect, it } from 'vitest';
import { checkAgentConfig } from './load-agent-config.ts';
import { type Loose, mutated } from './test-support/base-config.ts';

type Case = [name: string, change: (config: Loose) => void, path: string, code: string];

/** The base config with a small valid `knowledge` block. */
function withKnowledge(change: (config: Loose) => void = () => {}) {
  return mutated((c) => {
    c.knowledge = { bases: ['Help center', 'kb_0190a1b2c3d4'], mode: 'tool', top_k: 5 };
    change(c);
  });
}

const cases: Case[] = [
  ['no bases', (c) => (c.knowledge.bases = []), '/knowledge/bases', 'too_few'],
  [
    'eleven bases',
    (c) => (c.knowledge.bases = Array.from({ length: 11 }, (_, i) => `b${i}`)),
    '/knowledge/bases',
    'too_many',
  ],
  ['an empty base name', (c) => (c.knowledge.bases = ['']), '/knowledge/bases/0', 'empty_value'],
  ['a duplicate base', (c) => c.knowledge.bases.push('help center '), '/knowledge/bases/2', 'duplicate_knowledge_base'],
  ['an unknown mode', (c) => (c.knowledge.mode = 'always'), '/knowledge/mode', 'invalid_value'],
  ['top_k zero', (c) => (c.knowledge.top_k = 0), '/knowledge/top_k', 'out_of_range'],
  ['top_k 21', (c) => (c.knowledge.top_k = 21), '/knowledge/top_k', 'out_of_range'],
  ['an unknown key', (c) => (c.knowledge.k = 3), '/knowledge/k', 'unknown_key'],
  [
    'a tool named search_knowledge',
    (c) => (c.tools[0].name = 'search_knowledge'),
    '/tools/0/name',
    'reserved_tool_name',
  ],
];

describe('knowledge in agent configs', () => {
  it('accepts a knowledge block, with defaults left out, and lets action books name search_knowledge', () => {
    const full = checkAgentConfig(
      withKnowledge((c) => c.action_books.push({ condition: 'c', action: 'a', tools: ['search_knowledge'] })),
    );
    expect(full.ok ? [] : full.issues).toEqual([]);
    const minimal = checkAgentConfig(mutated((c) => (c.knowledge = { bases: ['Help center'] })));
    expect(minimal.ok ? [] : minimal.issues).toEqual([]);
  });

  it('refuses search_knowledge in action books of an agent whose knowledge is searched automatically', () => {
    const result = checkAgentConfig(
      withKnowledge((c) => {
        c.knowledge.mode = 'auto';
        c.action_books.push({ condition: 'c', action: 'a', tools: ['search_knowledge'] });
      }),
    );
    expect(result.ok ? [] : result.issues.map((i) => [i.path, i.code])).toContainEqual([
      '/action_books/1/tools/0',
      'unknown_tool',
    ]);
  });

  it.each(cases)('%s', (_name, change, path, code) => {
    const result = checkAgentConfig(withKnowledge(change));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.path, i.code])).toContainEqual([path, code]);
  });

  it('reports every knowledge problem in one pass', () => {
    const result = checkAgentConfig(
      withKnowledge((c) => {
        c.knowledge.bases.push('Help center');
        c.knowledge.top_k = 99;
        c.tools[0].name = 'search_knowledge';
      }),
    );
    expect(result.ok ? [] : result.issues.map((i) => i.code).sort()).toEqual(
      expect.arrayContaining(['duplicate_knowledge_base', 'out_of_range', 'reserved_tool_name']),
    );
  });
});
