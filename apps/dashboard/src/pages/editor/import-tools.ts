import type { ToolConfig } from '@agentry/contract';
import { ProblemError } from '@agentry/contract';
import type { ToolImportBody } from '@agentry/contract/schemas';
import type { MessageKey } from '../../i18n/messages-en.ts';

/** A tool name: a letter, then letters, digits, _ and - (at most 64 characters; the config loader's rule). */
const MAX_TOOL_NAME = 64;

/** What the user gave in the dialog: a document (pasted or uploaded), a URL, or a cURL command. */
export type ImportSource =
  | { kind: 'openapi'; from: 'text'; text: string }
  | { kind: 'openapi'; from: 'url'; url: string }
  | { kind: 'curl'; command: string };

/** The request body for a source, with the picked operations (none: all of them). */
export function importBody(source: ImportSource, operations?: readonly string[]): ToolImportBody {
  const src: ToolImportBody['source'] =
    source.kind === 'curl'
      ? { kind: 'curl', command: source.command.trim() }
      : source.from === 'url'
        ? { kind: 'openapi', url: source.url.trim() }
        : { kind: 'openapi', document: source.text };
  return operations && operations.length > 0 ? { source: src, operations: [...operations] } : { source: src };
}

/** The source is filled in enough to send. */
export function sourceReady(source: ImportSource): boolean {
  if (source.kind === 'curl') return source.command.trim().length > 0;
  return source.from === 'url' ? source.url.trim().length > 0 : source.text.trim().length > 0;
}

/** Whether the picked operations differ from those the last answer turned into tools. */
export function selectionChanged(
  operations: ReadonlyArray<{ id: string; selected: boolean }>,
  picked: ReadonlySet<string>,
): boolean {
  return operations.some((op) => op.selected !== picked.has(op.id));
}

export interface Renamed {
  from: string;
  to: string;
}

/**
 * The draft's tools with the imported ones appended. A name already taken (by a tool of the draft
 * or an earlier imported one) gets the first free suffix `_2`, `_3`… (the importer's own rule for
 * duplicate operation ids), shortening the name so it stays within 64 characters; each rename is
 * reported so the dialog can say so.
 *
 * @example
 * mergeImportedTools([{ name: 'getPet', … }], [{ name: 'getPet', … }]).renamed; // [{ from: 'getPet', to: 'getPet_2' }]
 */
export function mergeImportedTools(
  existing: readonly ToolConfig[],
  imported: ReadonlyArray<Record<string, unknown>>,
): { tools: ToolConfig[]; added: string[]; renamed: Renamed[] } {
  const taken = new Set(existing.map((t) => t.name).filter((n): n is string => typeof n === 'string'));
  const tools: ToolConfig[] = [...existing];
  const added: string[] = [];
  const renamed: Renamed[] = [];
  for (const item of imported) {
    const tool = structuredClone(item) as ToolConfig;
    const original = typeof tool.name === 'string' && tool.name ? tool.name : 'imported_tool';
    let name = original;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${original.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    }
    if (name !== original) renamed.push({ from: original, to: name });
    taken.add(name);
    tools.push({ ...tool, name });
    added.push(name);
  }
  return { tools, added, renamed };
}

/** The secrets to store now: those the user typed a value for (the others are left as they are). */
export function secretsToStore(
  needed: ReadonlyArray<{ name: string }>,
  values: Readonly<Record<string, string>>,
): Array<{ name: string; value: string }> {
  return needed.map((s) => ({ name: s.name, value: values[s.name] ?? '' })).filter((s) => s.value.length > 0);
}

/** Needed secrets that neither exist in the tenant nor were typed: the tools fail until they are set. */
export function missingSecrets(
  needed: ReadonlyArray<{ name: string }>,
  values: Readonly<Record<string, string>>,
  existing: ReadonlySet<string>,
): string[] {
  return needed.filter((s) => !existing.has(s.name) && !values[s.name]).map((s) => s.name);
}

/** The largest document the API takes (5 MiB); a larger file is refused before it is sent. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export interface ImportFailure {
  /** Plain words for what went wrong and what to do. */
  key: MessageKey;
  vars?: Record<string, string | number>;
  /** The API's own lines (the validator's or the loader's problems), shown under the message. */
  details: string[];
  /** The API's code, for support. */
  code?: string;
}

const MESSAGES: Record<string, MessageKey> = {
  import_document_invalid: 'importTools.error.documentInvalid',
  import_curl_invalid: 'importTools.error.curlInvalid',
  import_too_large: 'importTools.error.tooLarge',
  import_too_many_operations: 'importTools.error.tooManyOperations',
  import_too_many_refs: 'importTools.error.tooManyRefs',
  import_fetch_failed: 'importTools.error.fetchFailed',
  egress_forbidden_address: 'importTools.error.privateAddress',
  egress_forbidden_scheme: 'importTools.error.scheme',
  egress_too_many_redirects: 'importTools.error.redirects',
  egress_dns_failed: 'importTools.error.dns',
  validation_failed: 'importTools.error.validation',
  payload_too_large: 'importTools.error.tooLarge',
  server_busy: 'importTools.error.busy',
  rate_limited: 'importTools.error.busy',
  network_error: 'importTools.error.network',
  forbidden: 'importTools.error.forbidden',
  insufficient_scope: 'importTools.error.forbidden',
};

/** Any failure of the dialog's calls, in plain words (never an empty message). */
export function describeImportFailure(error: unknown): ImportFailure {
  if (error instanceof ProblemError) {
    const details = (error.problem.errors ?? []).map((e) => {
      const message = firstLine(e.message);
      return e.path && e.path !== '/' ? `${e.path}: ${message}` : message;
    });
    const key = MESSAGES[error.code] ?? (error.status === 413 ? 'importTools.error.tooLarge' : undefined);
    const detail = firstLine(error.problem.detail || error.problem.title || '');
    if (key) {
      // The API's sentence adds what the plain words cannot know (which header, which host).
      const extra = details.length === 0 && detail && key !== 'importTools.error.privateAddress' ? [detail] : [];
      return { key, details: [...details, ...extra], code: error.code };
    }
    return { key: 'importTools.error.other', vars: { message: detail || error.code }, details, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { key: 'importTools.error.other', vars: { message: message || '?' }, details: [] };
}

/** A validator's message may carry a code frame after its first line: the first line says it. */
function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
