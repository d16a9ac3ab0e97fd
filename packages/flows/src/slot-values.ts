import type { FieldIssue } from '@agentry/errors';
import type { CompiledFlow } from './compile-flows.ts';
import { normalise } from './compile-flows.ts';

/** What reading one answer gave: a valid value, or why not (said to the user when re-asking). */
export type SlotReading = { ok: true; value: unknown } | { ok: false; message: string };

const YES = new Set([
  'yes',
  'y',
  'yeah',
  'yep',
  'sure',
  'ok',
  'okay',
  'confirm',
  'correct',
  'right',
  '是',
  '是的',
  '好',
  '好的',
  '对',
  '确认',
  '可以',
  '行',
]);
const NO = new Set(['no', 'n', 'nope', 'not', "don't", 'do not', 'wrong', '不', '不是', '否', '不要', '不对', '不用']);

/**
 * Reads a yes or a no from an answer (the confirm buttons' labels count), or undefined when it is
 * neither.
 *
 * @example
 * yesOrNo('Yes, file it', { yes: 'Yes, file it', no: 'No' }); // true
 */
export function yesOrNo(text: string, labels: { yes: string; no: string }): boolean | undefined {
  const said = normalise(text);
  if (said === normalise(labels.yes) || YES.has(said)) return true;
  if (said === normalise(labels.no) || NO.has(said)) return false;
  return undefined;
}

/**
 * Extracts a slot's value from an answer with the slot's pattern (the first capture group, or the
 * whole match), converts it to the slot's JSON type and validates it. Undefined when the slot has no
 * pattern (the model extracts it then).
 *
 * @example
 * readSlotByPattern(flow, 'start', 'from 2026-12-01'); // { ok: true, value: '2026-12-01' }
 */
export function readSlotByPattern(flow: CompiledFlow, slot: string, text: string): SlotReading | undefined {
  const pattern = flow.patterns.get(slot);
  if (!pattern) return undefined;
  const matcher = pattern.matcher(text);
  if (!matcher.find()) return { ok: false, message: notUnderstood(flow, slot) };
  const raw = matcher.groupCount() >= 1 ? (matcher.group(1) ?? matcher.group(0)) : matcher.group(0);
  return validateSlot(flow, slot, coerce(flow, slot, (raw ?? '').trim()));
}

/**
 * Validates a value against the slot's schema; the message names what is wrong in plain words.
 *
 * @example
 * validateSlot(flow, 'days', 3); // { ok: true, value: 3 }
 */
export function validateSlot(flow: CompiledFlow, slot: string, value: unknown): SlotReading {
  const validate = flow.slotValidators.get(slot);
  if (!validate) return { ok: true, value };
  const checked = validate({ value });
  if (checked.ok) return { ok: true, value: (checked.value as { value: unknown }).value };
  // A regular expression means nothing to the person answering: name what was expected instead.
  const description = flow.config.slots?.[slot]?.description;
  if (checked.issues[0]?.message.includes('must match') && description) {
    return { ok: false, message: `That does not look like ${lowerFirst(description)}.` };
  }
  return { ok: false, message: issueText(checked.issues) };
}

/** Buttons for a slot whose schema is an enum of strings or numbers. */
export function enumChoices(flow: CompiledFlow, slot: string): string[] | undefined {
  const schema = flow.config.slots?.[slot]?.schema as { enum?: unknown[] } | undefined;
  const choices = schema?.enum?.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
  return choices && choices.length > 0 && choices.length <= 12 ? choices : undefined;
}

function coerce(flow: CompiledFlow, slot: string, raw: string): unknown {
  const type = (flow.config.slots?.[slot]?.schema as { type?: unknown } | undefined)?.type;
  if ((type === 'number' || type === 'integer') && raw !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (type === 'boolean') return yesOrNo(raw, { yes: 'true', no: 'false' }) ?? raw;
  return raw;
}

function notUnderstood(flow: CompiledFlow, slot: string): string {
  const description = flow.config.slots?.[slot]?.description;
  return description ? `I could not find ${lowerFirst(description)} in that.` : 'I could not understand that.';
}

function issueText(issues: FieldIssue[]): string {
  const first = issues[0];
  if (!first) return 'That is not a valid answer.';
  return `That is not a valid answer: it ${first.message.replace(/^(the tool call|value)\s*/i, '')}.`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
