import { beforeAll, describe, expect, it } from 'vitest';
import { describeResult } from './report.ts';
import { type ChaosResult, chaosPrerequisitesMissing, runChaos, SHORT_FORM } from './suite.ts';

const missing = chaosPrerequisitesMissing();
if (missing) console.warn(`[chaos] NOTICE: ${missing}: the chaos suite is SKIPPED.`);

/**
 * The chaos suite's short form (see suite.ts): one run of load and faults in `beforeAll`, then one
 * assertion per invariant, so a failing CI run names each broken promise with its counts.
 */
describe.runIf(!missing)('chaos (short form): durability under faults', () => {
  let chaos: ChaosResult;
  beforeAll(async () => {
    chaos = await runChaos({ ...SHORT_FORM, log: (line) => console.log(line) });
    console.log(chaos.report);
    // About 3 minutes on an idle 2-core machine; one loaded 10× over took 10-16 minutes.
  }, 1_500_000);

  const invariant = (index: number) => () => {
    const result = chaos.results[index]!;
    expect(result.checked, `${result.name}: nothing was checked`).toBeGreaterThan(0);
    expect(result.violations, describeResult(result)).toEqual([]);
  };
  it('every message was accepted', invariant(0));
  it('every run reached a final status', invariant(1));
  it('no run failed for an infrastructure reason', invariant(2));
  it('transcripts: nothing lost, duplicated or reordered', invariant(3));
  it('tool calls: a POST key at most once, a GET key at most twice', invariant(4));
  it('resumed streams continue exactly', invariant(5));
  it('every stream ended with a final run-status in time', invariant(6));
  it('the API never answered 5xx (503/429 carry Retry-After)', invariant(7));
  it('no process exited unless the suite killed it', invariant(8));
});
