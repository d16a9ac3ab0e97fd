import type { ExpectationResult, TestCaseResult, TestRun } from '@agentry/contract/schemas';

/**
 * What a finished test run says in a terminal: each failing case with each failing expectation
 * next to what happened instead (and why an attempt could not finish), then the counts, tokens,
 * cost and the verdict.
 *
 * @example
 * io.out(testRunReport(await api.call<TestRun>('GET', `/v1/agents/${id}/test-runs/${runId}`)));
 */
export function testRunReport(run: TestRun): string {
  const failing = (run.results ?? []).filter((result) => !result.passed);
  const lines: string[] = [];
  if (failing.length > 0) {
    lines.push('', 'Failing cases:');
    for (const result of failing) lines.push(...caseLines(result, run.repetitions));
  }
  lines.push('', summary(run));
  if (run.error) lines.push(`  ${run.error.code}: ${run.error.message}`);
  return `${lines.join('\n')}\n`;
}

function caseLines(result: TestCaseResult, repetitions: number): string[] {
  const passedAttempts = result.attempts.filter((a) => a.passed).length;
  const lines = [`✗ ${result.name} (${passedAttempts} of ${result.attempts.length} repetitions passed)`];
  for (const attempt of result.attempts) {
    if (attempt.passed) continue;
    const where = repetitions > 1 ? `repetition ${attempt.repetition}, ` : '';
    attempt.turns.forEach((turn, i) => {
      const failed = turn.expectations.filter((e) => !e.passed);
      if (failed.length === 0) return;
      lines.push(`    ${where}turn ${i + 1} > ${clip(turn.user, 80)}`);
      for (const expectation of failed) lines.push(`      ✗ ${label(expectation)}: ${expectation.detail}`);
    });
    if (attempt.error) lines.push(`    ${where}could not finish: ${attempt.error}`);
  }
  return lines;
}

/** An expectation in a few words: its kind and what it names. */
function label({ expectation }: ExpectationResult): string {
  const e = expectation as Record<string, unknown>;
  const subject = e.tool ?? e.text ?? (e.pattern ? `/${e.pattern}/` : undefined) ?? e.rubric ?? e.document;
  const named = e.flow ? `${e.flow} → ${e.step}` : subject;
  return named === undefined ? expectation.type : `${expectation.type} ${clip(String(named), 60)}`;
}

function summary(run: TestRun): string {
  const { input_tokens: input, output_tokens: output } = run.usage;
  const cost = run.cost_usd === null ? 'cost unknown' : `cost $${run.cost_usd.toFixed(4)}`;
  const counts = `${run.case_count} case${run.case_count === 1 ? '' : 's'}: ${run.passed_count} passed, ${run.failed_count} failed`;
  const verdict = run.status === 'passed' ? '✓ passed' : `✗ ${run.status}`;
  return `${verdict} · ${counts} · ${input + output} tokens (${input} in, ${output} out) · ${cost} · version ${run.agent_version}, test run ${run.id}`;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
