import { agentConfigSchema } from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import { headerNameProblem } from './header-rules.ts';
import { pointer } from './json-pointer.ts';

/** The run events a webhook may subscribe to (the schema's `webhooks[].events` values). */
export const WEBHOOK_EVENTS = agentConfigSchema.$defs.webhook.properties.events.items.enum;

/** Headers the dispatcher sets itself: the signature, its inputs and the body's type. */
const RESERVED_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type']);

const SECRET_PLACEHOLDER = /\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Problems of `webhooks` the JSON Schema cannot see: a URL that is not an absolute http(s) URL
 * with a host (or carries credentials or a fragment), headers the dispatcher owns or the egress
 * guard refuses, and header placeholders other than `{{secrets.NAME}}`. Private addresses are not
 * refused here: DNS can change, so the egress guard decides at send time.
 *
 * @example
 * webhookIssues({ webhooks: [{ url: 'ftp://x', events: ['run.completed'], signing_secret: 'S' }] });
 * // [{ path: '/webhooks/0/url', code: 'invalid_url', … }]
 */
export function webhookIssues(doc: Json): FieldIssue[] {
  if (!Array.isArray(doc.webhooks)) return [];
  return doc.webhooks.flatMap((hook, i) => (isObject(hook) ? entryIssues(hook, i) : []));
}

function entryIssues(hook: Json, i: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (typeof hook.url === 'string' && hook.url !== '') {
    const problem = urlProblem(hook.url);
    if (problem) {
      issues.push({
        path: pointer('webhooks', i, 'url'),
        code: 'invalid_url',
        message: `webhooks[${i}].url ${problem}`,
        hint: 'for example https://hooks.example.com/agentry',
      });
    }
  }
  for (const [name, value] of Object.entries(isObject(hook.headers) ? hook.headers : {})) {
    const path = pointer('webhooks', i, 'headers', name);
    const problem = RESERVED_HEADERS.has(name.toLowerCase())
      ? 'set by the webhook dispatcher'
      : headerNameProblem(name);
    // Malformed names are the schema's to report.
    if (problem && problem !== 'invalid header name') {
      issues.push({
        path,
        code: 'header_not_allowed',
        message: `webhooks[${i}] may not send the header \`${name}\` (${problem})`,
      });
    }
    if (typeof value === 'string' && value.replace(SECRET_PLACEHOLDER, '').includes('{{')) {
      issues.push({
        path,
        code: 'invalid_placeholder',
        message: `webhooks[${i}].headers.${name} may only use {{secrets.NAME}} placeholders`,
        hint: 'a webhook has no tool arguments or context to fill in; store tokens as tenant secrets',
      });
    }
  }
  return issues;
}

function urlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.hostname === '') return 'needs a host';
  if (url.username !== '' || url.password !== '') return 'may not carry a user name or password (use headers)';
  if (url.hash !== '') return 'may not contain a fragment (#...)';
  return undefined;
}

/**
 * The tenant secrets a webhook's headers name.
 *
 * @example
 * webhookHeaderSecrets({ Authorization: 'Bearer {{secrets.HOOK_TOKEN}}' }); // ['HOOK_TOKEN']
 */
export function webhookHeaderSecrets(headers: Readonly<Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const value of Object.values(headers)) for (const m of value.matchAll(SECRET_PLACEHOLDER)) names.add(m[1]!);
  return [...names];
}

/**
 * Fills `{{secrets.NAME}}` placeholders of a webhook's headers with opened secret values (at send
 * time only; the stored delivery keeps the templates). A name without a value is left empty.
 *
 * @example
 * fillWebhookHeaders({ Authorization: 'Bearer {{secrets.T}}' }, { T: 'abc' }); // { Authorization: 'Bearer abc' }
 */
export function fillWebhookHeaders(
  headers: Readonly<Record<string, string>>,
  secrets: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value.replace(SECRET_PLACEHOLDER, (_, secret: string) => secrets[secret] ?? ''),
    ]),
  );
}
