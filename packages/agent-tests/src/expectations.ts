import { argumentsValidator } from '@agentry/config';
import type { Expectation, ExpectationResult } from '@agentry/contract/schemas';
import { RE2JS } from 're2js';
import type { Judge, Verdict } from './judge.ts';
import type { TurnObservation } from './observe.ts';

const MAX_DETAIL = 600;

/**
 * Checks a turn's expectations against what it showed; each result says what happened instead
 * when it fails. Rubrics go to the judge (none given: the rubric fails and says so); the judge's
 * verdicts are returned for their cost.
 *
 * @example
 * const { results } = await checkExpectations(observation, turn.expect, { judge, transcript });
 */
export async function checkExpectations(
  seen: TurnObservation,
  expectations: readonly Expectation[],
  options: { judge?: Judge; transcript: string },
): Promise<{ results: ExpectationResult[]; verdicts: Verdict[] }> {
  const results: ExpectationResult[] = [];
  const verdicts: Verdict[] = [];
  for (const expectation of expectations) {
    if (expectation.type === 'rubric') {
      if (!options.judge) {
        results.push({ expectation, passed: false, detail: 'No judge model is available to grade this rubric' });
        continue;
      }
      const verdict = await options.judge({
        rubric: expectation.rubric,
        transcript: options.transcript,
        reply: seen.reply,
      });
      verdicts.push(verdict);
      results.push({
        expectation,
        passed: verdict.passed,
        detail: clip(verdict.reason || (verdict.passed ? 'passed' : 'failed')),
      });
      continue;
    }
    const { passed, detail } = checkOne(seen, expectation);
    results.push({ expectation, passed, detail: clip(detail) });
  }
  return { results, verdicts };
}

/** One expectation other than a rubric: whether it holds, and what was seen. */
export function checkOne(
  seen: TurnObservation,
  expectation: Exclude<Expectation, { type: 'rubric' }>,
): { passed: boolean; detail: string } {
  switch (expectation.type) {
    case 'tool_called': {
      const calls = seen.toolCalls.filter((c) => c.name === expectation.tool);
      if (calls.length === 0)
        return { passed: false, detail: `${expectation.tool} was not called; ${calledList(seen)}` };
      if (!expectation.arguments) return { passed: true, detail: `${expectation.tool} was called` };
      const check = argumentsValidator(expectation.arguments);
      const matching = calls.find((c) => check(c.arguments).ok);
      if (matching) return { passed: true, detail: `${expectation.tool} was called with ${json(matching.arguments)}` };
      const first = check(calls[0]!.arguments);
      const why = first.ok ? '' : `: ${first.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`;
      return {
        passed: false,
        detail: `${expectation.tool} was called with ${json(calls[0]!.arguments)}, which does not match${why}`,
      };
    }
    case 'tool_not_called': {
      const call = seen.toolCalls.find((c) => c.name === expectation.tool);
      return call
        ? { passed: false, detail: `${expectation.tool} was called with ${json(call.arguments)}` }
        : { passed: true, detail: `${expectation.tool} was not called` };
    }
    case 'reply_contains':
    case 'reply_not_contains': {
      const found = contains(seen.reply, expectation.text, expectation.case_sensitive === true);
      const wanted = expectation.type === 'reply_contains';
      return {
        passed: found === wanted,
        detail: `the reply ${found ? 'contains' : 'does not contain'} "${expectation.text}": ${quote(seen.reply)}`,
      };
    }
    case 'reply_matches': {
      const flags = expectation.case_sensitive ? 0 : RE2JS.CASE_INSENSITIVE;
      const matched = RE2JS.compile(expectation.pattern, flags).matcher(seen.reply).find();
      return {
        passed: matched,
        detail: `the reply ${matched ? 'matches' : 'does not match'} /${expectation.pattern}/: ${quote(seen.reply)}`,
      };
    }
    case 'flow_step': {
      const wanted = `${expectation.flow}/${expectation.step}`;
      if (seen.flowSteps.includes(wanted)) return { passed: true, detail: `the flow reached ${wanted}` };
      return {
        passed: false,
        detail: seen.flowSteps.length
          ? `the flow went through ${seen.flowSteps.join(' → ')}, not ${wanted}`
          : 'no flow ran in this turn',
      };
    }
    case 'handoff_requested':
      return seen.handoff
        ? { passed: true, detail: 'a person was asked for' }
        : { passed: false, detail: `no handoff was requested; ${calledList(seen)}` };
    case 'cited': {
      const needle = expectation.document.toLowerCase();
      const hit = seen.citations.find(
        (c) => c.document_id === expectation.document || c.title.toLowerCase().includes(needle),
      );
      if (hit) return { passed: true, detail: `cited "${hit.title}"${hit.page ? ` (page ${hit.page})` : ''}` };
      return {
        passed: false,
        detail: seen.citations.length
          ? `cited ${seen.citations.map((c) => `"${c.title}"`).join(', ')}, not "${expectation.document}"`
          : 'the reply cites no document',
      };
    }
  }
}

function contains(haystack: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? haystack.includes(needle) : haystack.toLowerCase().includes(needle.toLowerCase());
}

function calledList(seen: TurnObservation): string {
  return seen.toolCalls.length ? `called: ${seen.toolCalls.map((c) => c.name).join(', ')}` : 'no tool was called';
}

function json(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function quote(reply: string): string {
  if (!reply) return '(no reply)';
  return `"${reply.length > 200 ? `${reply.slice(0, 200)}…` : reply}"`;
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}
