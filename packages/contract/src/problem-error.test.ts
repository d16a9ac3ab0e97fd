import { describe, expect, it } from 'vitest';
import { ProblemError, toProblem } from './problem-error.ts';

describe('ProblemError, the browser apps’ one error of a failed call', () => {
  it('reads a problem+json answer with its Retry-After', () => {
    const body = { type: 'about:blank', title: 'Too many', status: 429, detail: 'Slow down', code: 'rate_limited' };
    const error = ProblemError.fromResponse(429, body, '7');
    expect([error.kind, error.status, error.code, error.retryAfter, error.message]).toEqual([
      'http',
      429,
      'rate_limited',
      7,
      'Slow down',
    ]);
    expect(ProblemError.fromResponse(429, body, null).retryAfter).toBeUndefined();
    expect(ProblemError.fromResponse(429, body, 'soon').retryAfter).toBeUndefined();
    const invalid = ProblemError.fromResponse(422, {
      ...body,
      status: 422,
      code: 'validation_failed',
      errors: [{ path: '/name', code: 'required', message: 'Name it' }],
    });
    expect(invalid.problem.errors).toEqual([{ path: '/name', code: 'required', message: 'Name it' }]);
    expect(invalid.problem.details).toBeUndefined();
  });

  it('keeps an error’s extra members as its details (a refused publish names the failing cases)', () => {
    const refused = ProblemError.fromResponse(409, {
      type: 'about:blank',
      title: 'Tests failed',
      status: 409,
      detail: 'This agent requires passing tests to publish',
      code: 'tests_failed',
      state: 'failing',
      test_run_id: 'r1',
      failing_cases: ['Refund a broken order'],
    });
    expect(refused.problem.details).toEqual({
      state: 'failing',
      test_run_id: 'r1',
      failing_cases: ['Refund a broken order'],
    });
  });

  it('makes a problem of an answer that is not problem+json, and of no answer at all', () => {
    expect(toProblem(502, '<html>Bad gateway</html>')).toEqual({
      title: 'HTTP 502',
      status: 502,
      detail: '<html>Bad gateway</html>',
      code: 'http_error',
    });
    expect(toProblem(500, 'x'.repeat(1000)).detail).toHaveLength(300);
    expect(ProblemError.fromResponse(503, undefined).message).toBe('HTTP 503');
    const offline = ProblemError.network('Failed to fetch');
    expect([offline.kind, offline.status, offline.code, offline.message]).toEqual([
      'network',
      0,
      'network_error',
      'Failed to fetch',
    ]);
  });
});
