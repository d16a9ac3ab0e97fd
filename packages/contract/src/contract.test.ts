import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, FINAL_RUN_STATUSES, isFinalRunStatus, isScope, RUN_STATUSES, SCOPE_RESOURCES } from './index.ts';

describe('scopes', () => {
  it('are * and a read and a write scope for every resource', () => {
    expect(ALL_SCOPES[0]).toBe('*');
    expect(ALL_SCOPES).toHaveLength(1 + 2 * SCOPE_RESOURCES.length);
    for (const r of SCOPE_RESOURCES) expect(ALL_SCOPES).toEqual(expect.arrayContaining([`${r}:read`, `${r}:write`]));
    expect(SCOPE_RESOURCES).toEqual(expect.arrayContaining(['members', 'invitations', 'webhook-deliveries']));
  });

  it('tell known scopes from unknown ones', () => {
    expect(isScope('webhook-deliveries:write')).toBe(true);
    expect(isScope('agents:delete')).toBe(false);
  });
});

describe('run statuses', () => {
  it('final ones are a subset, and only they are final', () => {
    expect(FINAL_RUN_STATUSES.every((s) => RUN_STATUSES.includes(s))).toBe(true);
    expect(RUN_STATUSES.filter(isFinalRunStatus)).toEqual(['completed', 'failed', 'cancelled', 'timed_out']);
    expect(isFinalRunStatus('nope')).toBe(false);
  });
});
