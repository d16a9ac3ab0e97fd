import type { AgentConfigDocument } from '@agentry/contract';
import { type FieldIssue, ProblemError } from '@agentry/contract';
import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';

export type ValidationState =
  | { status: 'checking' }
  | { status: 'valid' }
  | { status: 'invalid'; issues: FieldIssue[] }
  | { status: 'unavailable'; message: string };

const DEBOUNCE_MS = 400;

/** Validates the draft with the API's loader as the user types: debounced, stale answers dropped. */
export function useValidation(config: AgentConfigDocument): ValidationState {
  const [state, setState] = useState<ValidationState>({ status: 'checking' });
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      setState((s) => (s.status === 'invalid' ? s : { status: 'checking' }));
      try {
        await agentsApi.validate(config, controller.signal);
        if (!controller.signal.aborted) setState({ status: 'valid' });
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ProblemError && error.problem.errors?.length) {
          setState({ status: 'invalid', issues: error.problem.errors });
        } else if (error instanceof ProblemError && error.status === 422) {
          setState({ status: 'invalid', issues: [{ path: '', code: error.code, message: error.message }] });
        } else {
          setState({ status: 'unavailable', message: (error as Error).message });
        }
      }
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [config]);
  return state;
}
