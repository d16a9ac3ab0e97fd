import type { Expectation } from '@agentry/contract/schemas';
import type { Translate } from '../../config/plain-issues.ts';

/**
 * An expectation in plain words ("The agent calls refund_order with arguments that match"), for
 * the results view, where each one stands next to what happened.
 *
 * @example
 * describeExpectation({ type: 'reply_contains', text: 'refund' }, t); // 'The reply contains "refund"'
 */
export function describeExpectation(expectation: { type: string; [key: string]: unknown }, t: Translate): string {
  const e = expectation as Expectation;
  switch (e.type) {
    case 'tool_called':
      return t(e.arguments ? 'tests.says.tool_called_with' : 'tests.says.tool_called', { tool: e.tool });
    case 'tool_not_called':
      return t('tests.says.tool_not_called', { tool: e.tool });
    case 'reply_contains':
      return t('tests.says.reply_contains', { text: e.text });
    case 'reply_not_contains':
      return t('tests.says.reply_not_contains', { text: e.text });
    case 'reply_matches':
      return t('tests.says.reply_matches', { pattern: e.pattern });
    case 'rubric':
      return t('tests.says.rubric', { rubric: e.rubric });
    case 'flow_step':
      return t('tests.says.flow_step', { flow: e.flow, step: e.step });
    case 'handoff_requested':
      return t('tests.says.handoff_requested');
    case 'cited':
      return t('tests.says.cited', { document: e.document });
    default:
      return expectation.type;
  }
}
