import type { AgentConfigDocument } from '@agentry/contract';

/** Context variables the platform fills in every conversation (packages/config context-variables). */
export const SYSTEM_CONTEXT = ['tenantId', 'agentId', 'conversationId', 'dialogId', 'chatbotId', 'userId'];

export type PlaceholderKind = 'parameter' | 'context' | 'secret';

export interface PlaceholderChoice {
  kind: PlaceholderKind;
  name: string;
  /** Text inserted into a template value. */
  token: string;
}

export function tokenFor(kind: PlaceholderKind, name: string): string {
  if (kind === 'context') return `{{context.${name}}}`;
  if (kind === 'secret') return `{{secrets.${name}}}`;
  return `{{${name}}}`;
}

const PLACEHOLDER =
  /\{\{\s*(?:(context|secrets)\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}|(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})/g;

/** Secret names the config already uses, so they can be offered as chips in every tool. */
export function secretsInUse(config: AgentConfigDocument): string[] {
  const names = new Set<string>();
  for (const match of JSON.stringify(config.tools ?? []).matchAll(PLACEHOLDER)) {
    if (match[1] === 'secrets' && match[2]) names.add(match[2]);
  }
  return [...names].sort();
}

/** The chips the endpoint editor offers for tool `index`. */
export function placeholderChoices(config: AgentConfigDocument, index: number): PlaceholderChoice[] {
  const tool = config.tools?.[index];
  const parameters = Object.keys(tool?.parameters?.properties ?? {});
  const context = [...SYSTEM_CONTEXT, ...(config.context ?? []).map((c) => c.name).filter(Boolean)];
  const choices: PlaceholderChoice[] = [];
  for (const name of parameters) choices.push({ kind: 'parameter', name, token: tokenFor('parameter', name) });
  for (const name of new Set(context)) choices.push({ kind: 'context', name, token: tokenFor('context', name) });
  for (const name of secretsInUse(config)) choices.push({ kind: 'secret', name, token: tokenFor('secret', name) });
  return choices;
}

export interface TemplatePiece {
  text: string;
  placeholder?: { kind: PlaceholderKind; name: string; known: boolean };
}

/**
 * Splits a template value into text and placeholders, marking placeholders that name nothing
 * known, so the editor can show chips and flag a typo before the server answers.
 */
export function splitTemplate(value: string, choices: PlaceholderChoice[]): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  let last = 0;
  for (const match of value.matchAll(PLACEHOLDER)) {
    const start = match.index ?? 0;
    if (start > last) pieces.push({ text: value.slice(last, start) });
    const kind: PlaceholderKind = match[1] === 'context' ? 'context' : match[1] === 'secrets' ? 'secret' : 'parameter';
    const name = match[2] ?? match[3] ?? '';
    const known = kind === 'secret' || choices.some((c) => c.kind === kind && c.name === name);
    pieces.push({ text: match[0], placeholder: { kind, name, known } });
    last = start + match[0].length;
  }
  if (last < value.length) pieces.push({ text: value.slice(last) });
  return pieces;
}

/** `value` with `token` inserted at the caret (or replacing the selection). */
export function insertAt(value: string, token: string, start: number, end = start): { value: string; caret: number } {
  return { value: value.slice(0, start) + token + value.slice(end), caret: start + token.length };
}
