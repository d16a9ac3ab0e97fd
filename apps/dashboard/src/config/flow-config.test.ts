import { describe, expect, it } from 'vitest';
import { conditionSchema, parseCondition } from './flow-conditions.ts';
import { END, flowEdges, freeStepId, renameStep } from './flow-graph.ts';
import { autoPattern, slotKind, slotReading, slotSchema, withSlotKind } from './flow-slots.ts';
import { phrasePattern } from './trigger-phrase.ts';

describe('flow editor helpers', () => {
  it('build a slot schema from a kind and read the kind back', () => {
    for (const kind of ['text', 'number', 'integer', 'boolean', 'date', 'email', 'choice'] as const)
      expect(slotKind(slotSchema(kind, ['a', 'b']))).toBe(kind);
    expect(slotSchema('choice', ['Annual', 'Sick'])).toEqual({ type: 'string', enum: ['Annual', 'Sick'] });
    const date = withSlotKind({ schema: slotSchema('text'), pattern: autoPattern('text') }, 'date');
    expect(date).toEqual({ schema: { type: 'string', format: 'date' }, pattern: autoPattern('date') });
    expect(slotReading(date)).toBe('auto');
    expect(slotReading({ schema: {} })).toBe('ai');
    // An author's own pattern survives a change of kind.
    expect(withSlotKind({ schema: {}, pattern: 'x(\\d+)' }, 'integer').pattern).toBe('x(\\d+)');
  });

  it('turn a condition form into JSON Schema and back; other schemas stay raw', () => {
    const cases = [
      { slot: 'days', op: 'gt', value: 10 },
      { slot: 'days', op: 'le', value: 3 },
      { slot: 'kind', op: 'eq', value: 'sick' },
      { slot: 'kind', op: 'ne', value: 'sick' },
      { slot: 'note', op: 'filled', value: '' },
    ] as const;
    for (const c of cases) expect(parseCondition(conditionSchema(c))).toEqual(c);
    expect(conditionSchema({ slot: 'days', op: 'gt', value: 10 })).toEqual({
      properties: { days: { exclusiveMinimum: 10 } },
      required: ['days'],
    });
    expect(parseCondition({ anyOf: [] })).toBeUndefined();
    expect(parseCondition({ properties: { a: { minimum: 1, maximum: 2 } }, required: ['a'] })).toBeUndefined();
  });

  it('draw the edges the engine walks', () => {
    const edges = flowEdges([
      { id: 'ask', type: 'ask', slot: 'x', prompt: '?' },
      { id: 'ok', type: 'confirm', prompt: '?', no: 'bye' },
      { id: 'call', type: 'tool', tool: 't', on_error: 'bye' },
      { id: 'split', type: 'branch', branches: [{ when: {}, goto: 'bye' }] },
      { id: 'bye', type: 'end' },
    ]);
    expect(edges.map((e) => `${e.from}-${e.kind}->${e.to}`)).toEqual([
      'ask-next->ok',
      'ok-yes->call',
      'ok-no->bye',
      'call-next->split',
      'call-on_error->bye',
      'split-goto->bye',
      'split-else->bye',
    ]);
    expect(flowEdges([{ id: 'only', type: 'reply', message: 'hi' }])).toEqual([
      { from: 'only', to: END, kind: 'next' },
    ]);
  });

  it('name steps freely and rename every reference', () => {
    expect(freeStepId(['ask', 'ask_2'], 'ask')).toBe('ask_3');
    const renamed = renameStep(
      [
        { id: 'a', type: 'confirm', no: 'b' },
        { id: 'b', type: 'branch', branches: [{ when: {}, goto: 'b' }], else: 'b' },
      ],
      'b',
      'c',
    );
    expect(renamed).toEqual([
      { id: 'a', type: 'confirm', no: 'c' },
      { id: 'c', type: 'branch', branches: [{ when: {}, goto: 'c' }], else: 'c' },
    ]);
  });

  it('turn a phrase into a safe, case-insensitive pattern', () => {
    expect(phrasePattern(' leave  request ')).toBe('(?i)\\bleave request\\b');
    expect(phrasePattern('请假')).toBe('请假');
    expect(phrasePattern('refund (now)?')).toBe('(?i)refund \\(now\\)\\?');
  });
});
