import { describe, expect, it } from 'vitest';
import {
  ALL_SCOPES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorStatus,
  FINAL_RUN_STATUSES,
  INTERNAL_ERROR_STATUS,
  isErrorCode,
  isFinalRunStatus,
  isScope,
  ROUTE_ERROR_STATUS,
  RUN_STATUSES,
  SCOPE_RESOURCES,
} from './index.ts';

// Every code has one status, an HTTP error status: a code without one fails this typecheck.
const STATUSES: Readonly<Record<ErrorCode, ErrorStatus>> = ERROR_STATUS;

describe('scopes', () => {
  it('are * and a read and a write scope for every resource', () => {
    expect(ALL_SCOPES[0]).toBe('*');
    expect(ALL_SCOPES).toHaveLength(1 + 2 * SCOPE_RESOURCES.length);
    for (const r of SCOPE_RESOURCES) expect(ALL_SCOPES).toEqual(expect.arrayContaining([`${r}:read`, `${r}:write`]));
    expect(SCOPE_RESOURCES).toEqual(
      expect.arrayContaining(['members', 'invitations', 'webhook-deliveries', 'model-providers']),
    );
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

describe('error codes', () => {
  it('each have one HTTP error status (4xx or 5xx)', () => {
    for (const [code, status] of Object.entries(STATUSES)) {
      expect(code, code).toMatch(/^[a-z][a-z0-9_]*[a-z0-9]$/);
      expect(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`).toBe(true);
    }
  });

  it('are route codes or internal ones, never both, and nothing else', () => {
    const route = Object.keys(ROUTE_ERROR_STATUS);
    const internal = Object.keys(INTERNAL_ERROR_STATUS);
    expect(route.filter((code) => internal.includes(code))).toEqual([]);
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...route, ...internal].sort());
  });

  it('tell known codes from unknown ones', () => {
    expect(isErrorCode('agent_not_found')).toBe(true);
    expect(isErrorCode('stale_attempt')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('no_such_code')).toBe(false);
  });
});
