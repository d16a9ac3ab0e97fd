import type { FieldIssue } from '@agentry/contract';
import type { MessageKey } from '../i18n/translate.ts';
import { fieldId, fieldPointer, isUnder } from './field-pointer.ts';
import { parsePointer } from './json-pointer.ts';

/** Translates a message key with its slots (the dashboard's `t`). */
export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

const BASIC = new Set(['name', 'description', 'background', 'language', 'tone', 'chatbot_id', 'instructions']);
const TOOL_FIELDS: Record<string, MessageKey> = {
  name: 'tools.name',
  description: 'tools.description',
  type: 'tools.type',
  approval: 'tools.approval',
  retries: 'tools.retries',
  cache_ttl: 'tools.cacheTtl',
};
const ENDPOINT_FIELDS: Record<string, MessageKey> = {
  url: 'endpoint.url',
  method: 'endpoint.method',
  timeout: 'endpoint.timeout',
  headers: 'endpoint.headers',
  query_params: 'endpoint.query',
  body: 'endpoint.body',
};

/**
 * The label a field has in the form, with where it sits ("Tool lookup › URL"), for an issue's
 * pointer; undefined for a pointer the forms have no label for (the loader's own message stays).
 *
 * @example
 * fieldLabel('/tools/0/endpoint/url', { tools: [{ name: 'lookup' }] }, t); // 'Tool lookup › URL'
 */
export function fieldLabel(pointer: string, config: unknown, t: Translate): string | undefined {
  const s = parsePointer(fieldPointer(pointer));
  const [top, a, b, c, d] = s;
  if (top === 'basic_settings' && a && BASIC.has(a)) return t(`basic.${a}` as MessageKey);
  if (top === 'model' && (a === 'provider' || a === 'name' || a === 'temperature')) return t(`model.${a}`);
  if (top === 'limits' && a === 'max_steps') return t('limits.max_steps');
  if (top === 'knowledge') {
    const key = (
      { bases: 'editor.knowledge.bases', mode: 'editor.knowledge.mode', top_k: 'editor.knowledge.topK' } as const
    )[a ?? ''];
    return key ? `${t('editor.knowledge.title')} › ${t(key)}` : t('editor.knowledge.title');
  }
  if (top === 'action_books' && a !== undefined) {
    const card = t('actions.card', { n: Number(a) + 1 });
    const key = ({ condition: 'actions.condition', action: 'actions.action', tools: 'actions.tools' } as const)[
      b ?? ''
    ];
    return key ? `${card} › ${t(key)}` : card;
  }
  if (top === 'flows' && a !== undefined) {
    const card = t('flows.card', { name: named(config, 'flows', a) });
    const key = ({ name: 'flows.name', description: 'flows.description' } as const)[b ?? ''];
    return key ? `${card} › ${t(key)}` : card;
  }
  if (top !== 'tools' || a === undefined) return undefined;
  const card = t('tools.card', { name: named(config, 'tools', a) });
  if (b === 'endpoint' && c && ENDPOINT_FIELDS[c]) {
    const section = `${card} › ${t(ENDPOINT_FIELDS[c])}`;
    return d === undefined ? section : `${section} › ${d}`;
  }
  if (b === 'parameters') return `${card} › ${t('param.title')}${d === undefined ? '' : ` › ${d}`}`;
  return b && TOOL_FIELDS[b] ? `${card} › ${t(TOOL_FIELDS[b])}` : card;
}

/** The name a card shows for a tool or flow: its name, else its number. */
function named(config: unknown, list: 'tools' | 'flows', index: string): string {
  const item = (config as Record<string, Array<{ name?: unknown }> | undefined> | undefined)?.[list]?.[Number(index)];
  return typeof item?.name === 'string' && item.name ? item.name : String(Number(index) + 1);
}

const PLAIN: Record<string, MessageKey> = {
  empty_value: 'issue.empty_value',
  invalid_url: 'issue.invalid_url',
  wrong_type: 'issue.wrong_type',
};

/**
 * An issue told in plain words by the field's label: "Name can't be empty" instead of
 * "basic_settings.name must not be empty". Codes without a plain sentence keep the loader's own
 * message (it names the value at fault, e.g. a misspelled placeholder), after the label.
 */
export function plainIssue(issue: FieldIssue, config: unknown, t: Translate): FieldIssue {
  const label = fieldLabel(issue.path, config, t);
  if (!label) return issue;
  const key = PLAIN[issue.code];
  const message = key ? t(key, { label }) : t('issue.generic', { label, message: issue.message });
  return { ...issue, message };
}

/** What the user has done so far that lets issues show. */
export interface IssueVisibility {
  /** A save was tried (or the JSON was edited by hand): every issue shows. */
  all: boolean;
  /**
   * Pointers of values the user edited: a field, or a section whose rows they edited (a body row
   * edits the body). Adding an item to a list is not editing its fields (see {@link isStructuralEdit}).
   */
  edited: ReadonlySet<string>;
  /** DOM ids of fields the user left (focus moved away). */
  left: ReadonlySet<string>;
}

/**
 * The issues to show: after a save attempt all of them; before it only those of fields the user
 * has touched — edited (or edited inside: a body row edits its section), or focused and left — so a
 * blank agent does not greet its author with errors about fields they have not reached yet.
 */
export function visibleIssues(issues: FieldIssue[], seen: IssueVisibility): FieldIssue[] {
  if (seen.all) return issues;
  return issues.filter((issue) => {
    const field = fieldPointer(issue.path);
    const id = fieldId(field);
    for (const left of seen.left) if (left === id || left.startsWith(`${id}-`)) return true;
    for (const edited of seen.edited)
      if (isUnder(edited, field) || fieldPointer(edited) === field || isUnder(field, edited)) return true;
    return false;
  });
}

/**
 * An edit that adds, moves or removes a list item (its path ends at an index) rather than changing
 * a value the user typed: it touches no field, so a new tool's empty fields do not show errors yet.
 */
export function isStructuralEdit(path: ReadonlyArray<string | number>): boolean {
  return typeof path[path.length - 1] === 'number';
}
