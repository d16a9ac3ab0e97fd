import type { PendingInput, ToolAnswer } from '@agentry/contract/schemas';
import { parseArgs, short } from './client-tools.ts';
import { el } from './dom.ts';
import { highlight } from './highlight.ts';
import type { Translate } from './i18n.ts';

/** An open card; the run's later events settle it (buttons off, an outcome shown). */
export interface Card {
  settle(text?: string): void;
}

/** What the cards of one waiting step need from the widget. */
export interface PendingStep {
  t: Translate;
  /** Open cards by tool call id: calls already shown get no second card. */
  cards: Map<string, Card>;
  /** Runs a client tool the visitor accepted. */
  run(call: PendingInput, args: unknown): Promise<{ output: unknown; is_error?: boolean }>;
  /** Posts the step's answers; throws when that failed. */
  submit(answers: ToolAnswer[]): Promise<void>;
  /** Reports a failed submit (the cards are enabled again so the visitor can retry). */
  fail(error: unknown): void;
}

/**
 * Builds a card for each new pending call and registers it in `step.cards`. The answers of a step
 * are posted together, once every call has one, because the API resumes the run on that post.
 */
export function buildPendingCards(pending: PendingInput[], step: PendingStep): HTMLElement[] {
  const answers = new Map<string, ToolAnswer>();
  const group: Array<{ enable(): void }> = [];
  const submit = async () => {
    try {
      await step.submit([...answers.values()]);
    } catch (error) {
      answers.clear();
      for (const card of group) card.enable();
      step.fail(error);
    }
  };
  const built: HTMLElement[] = [];
  for (const call of pending) {
    if (step.cards.has(call.tool_call_id)) continue;
    built.push(
      buildCard(call, step, group, async (result) => {
        answers.set(call.tool_call_id, result);
        if (answers.size === pending.length) await submit();
      }),
    );
  }
  return built;
}

/** The code to show for a call: its `code` argument when there is one, else the arguments as JSON. */
function sourceOf(args: unknown): string {
  return args && typeof args === 'object' && typeof (args as { code?: unknown }).code === 'string'
    ? (args as { code: string }).code
    : (JSON.stringify(args, null, 2) ?? 'null');
}

function buildCard(
  call: PendingInput,
  step: PendingStep,
  group: Array<{ enable(): void }>,
  record: (result: ToolAnswer) => Promise<void>,
): HTMLElement {
  const t = step.t;
  const args = parseArgs(call.arguments);
  const approval = call.kind === 'approval';
  const title = el('h3', {}, t(approval ? 'approveTitle' : 'runTitle', { name: call.name }));
  const code = el('code');
  highlight(sourceOf(args), code);
  const yes = el('button', { type: 'button', class: 'btn primary' }, t(approval ? 'approve' : 'run'));
  const no = el('button', { type: 'button', class: 'btn' }, t('decline'));
  const outcome = el('div', { class: 'outcome', 'aria-live': 'polite' });
  const card = el(
    'div',
    { class: 'card', role: 'group', 'data-tool': call.name, 'data-kind': call.kind },
    title,
    el('pre', { tabindex: '0' }, code),
    el('div', { class: 'actions' }, yes, no),
    outcome,
  );
  card.setAttribute('aria-label', title.textContent ?? '');
  const setEnabled = (on: boolean) => {
    yes.disabled = !on;
    no.disabled = !on;
  };
  group.push({ enable: () => setEnabled(true) });
  step.cards.set(call.tool_call_id, {
    settle: (text) => {
      setEnabled(false);
      if (text || !outcome.textContent) outcome.textContent = text ?? t('answered');
    },
  });
  const answer = async (accept: boolean) => {
    setEnabled(false);
    let result: ToolAnswer;
    if (approval) {
      result = { tool_call_id: call.tool_call_id, decision: accept ? 'approve' : 'decline' };
      outcome.textContent = t(accept ? 'approved' : 'declined');
    } else if (!accept) {
      result = { tool_call_id: call.tool_call_id, is_error: true, output: 'The user declined to run this tool.' };
      outcome.textContent = t('declined');
    } else {
      outcome.textContent = t('running');
      result = { tool_call_id: call.tool_call_id, ...(await step.run(call, args)) };
      outcome.textContent = t(result.is_error ? 'failed' : 'result', { value: short(result.output) });
    }
    await record(result);
  };
  yes.addEventListener('click', () => void answer(true));
  no.addEventListener('click', () => void answer(false));
  return card;
}
