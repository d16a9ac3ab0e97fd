import type { ContextVariableConfig } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { contextIssues, modelVisibleContext, reservedContextIssues } from './context-values.ts';
import { withContextAliases } from './context-variables.ts';

const declared: ContextVariableConfig[] = [
  { name: 'customerId', required: true },
  { name: 'seats', type: 'integer' },
  { name: 'customerName', visible_to_model: true, description: 'first name' },
];

describe('context values', () => {
  it('reports missing required and wrongly typed variables', () => {
    expect(contextIssues(declared, { seats: 1.5 })).toEqual([
      { path: '/customerId', code: 'missing_context', message: 'context variable `customerId` is required' },
      { path: '/seats', code: 'wrong_type', message: 'context variable `seats` must be an integer' },
    ]);
    expect(contextIssues(declared, { customerId: 'c1', seats: 2 })).toEqual([]);
  });

  it('refuses the system variables a run fills itself, but not userId', () => {
    expect(contextIssues(declared, { customerId: 'c1', tenantId: 't2', userId: 'u1' })).toEqual([
      expect.objectContaining({ path: '/tenantId', code: 'reserved_context_variable' }),
    ]);
    expect(reservedContextIssues({ agentId: 'a', x: 1 }, (n) => `metadata.${n}`)).toEqual([
      expect.objectContaining({ path: 'metadata.agentId', code: 'reserved_context_variable' }),
    ]);
  });

  it('shows only variables visible to the model', () => {
    expect(modelVisibleContext(declared, { customerId: 'c1', customerName: 'Ada' })).toBe(
      'Context:\n- customerName (first name): Ada',
    );
    expect(modelVisibleContext(declared, { customerId: 'c1' })).toBeUndefined();
  });

  it('fills the dialogId / conversationId alias both ways', () => {
    expect({ ...withContextAliases({ conversationId: 'c' }) }).toEqual({ conversationId: 'c', dialogId: 'c' });
    expect({ ...withContextAliases({ dialogId: 'd' }) }).toEqual({ conversationId: 'd', dialogId: 'd' });
  });
});
