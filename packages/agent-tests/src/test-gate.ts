import type { TestGate } from '@agentry/contract/schemas';
import { type Db, latestTestRun, listTestCaseResults, type TestRunRow } from '@agentry/db';

/** A version's gate as data: what the publish check and the dashboard's button read. */
export interface GateState {
  required: boolean;
  state: TestGate['state'];
  testRun: TestRunRow | undefined;
  failingCases: string[];
}

/**
 * Whether a version may be published under its agent's `require_passing_tests` (`required`; the
 * state is given either way, for the dashboard): the latest test run of that version decides (`passing` only when it passed; `running` while one is queued or
 * running; `missing` without any; `failing` for failed, errored or cancelled ones, with the names
 * of the cases that failed).
 *
 * @example
 * const gate = await testGate(db, agent, 3);
 * if (gate.required && gate.state !== 'passing') throw testsFailed(gate);
 */
export async function testGate(
  db: Db,
  agent: { id: string; tenantId: string; requirePassingTests: boolean },
  version: number,
): Promise<GateState> {
  const testRun = await latestTestRun(db, agent.tenantId, agent.id, version);
  const required = agent.requirePassingTests;
  if (!testRun) return { required, state: 'missing', testRun, failingCases: [] };
  const failingCases =
    testRun.status === 'failed' || testRun.status === 'error' || testRun.status === 'cancelled'
      ? (await listTestCaseResults(db, agent.tenantId, testRun.id)).filter((r) => !r.passed).map((r) => r.name)
      : [];
  const state: TestGate['state'] =
    testRun.status === 'passed'
      ? 'passing'
      : testRun.status === 'queued' || testRun.status === 'running'
        ? 'running'
        : 'failing';
  return { required, state, testRun, failingCases };
}
