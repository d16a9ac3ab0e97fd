import type { AgentRunResult } from '@agentry/agent';
import type { Run, RunStatus } from '@agentry/db';
import { AppError } from '@agentry/errors';

export interface RunOutcome {
  status: RunStatus;
  error?: NonNullable<Run['error']>;
}

/**
 * Maps how the loop ended to the stored run status. Limits end a run as `failed` with the limit as
 * the error code (a clear reason, never an exception); a model failure is thrown so the caller can
 * retry it.
 */
export function runOutcome(result: AgentRunResult): RunOutcome {
  switch (result.status) {
    case 'completed':
      return { status: 'completed' };
    case 'cancelled':
      return { status: 'cancelled' };
    case 'timed_out':
      return {
        status: 'timed_out',
        error: {
          code: 'run_timeout',
          message: result.reason ?? 'The run took too long',
          category: 'user',
          retryable: false,
        },
      };
    case 'failed':
      throw result.error ? AppError.fromJSON(result.error) : new Error(result.reason ?? 'The run failed');
    default:
      return {
        status: 'failed',
        error: { code: result.status, message: result.reason ?? result.status, category: 'user', retryable: false },
      };
  }
}
