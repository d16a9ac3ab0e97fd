import { errors } from '@agentry/errors';
import type { TemplateProblem } from './template-ast.ts';

/** A URL template cut into its fixed origin and the parts placeholders may fill. */
export interface UrlParts {
  /** `https://api.example.com` — never comes from a placeholder. */
  origin: string;
  /** Everything after the origin up to `?`, e.g. `/orders/{{id}}`. */
  path: string;
  /** The query string template after `?`, if any. */
  query?: string;
}

const originPattern = /^(https?):\/\/([^/?#{}\s]+)/i;

/**
 * Splits a (normalised) URL template and checks that the scheme and host are fixed text, so a
 * model argument can never choose where a request goes.
 *
 * @example
 * splitUrlTemplate('https://api.x.com/orders/{{id}}?full=1');
 * // { ok: true, parts: { origin: 'https://api.x.com', path: '/orders/{{id}}', query: 'full=1' } }
 */
export function splitUrlTemplate(url: string): { ok: true; parts: UrlParts } | { ok: false; problem: TemplateProblem } {
  if (url.includes('#')) {
    return { ok: false, problem: { code: 'invalid_url', message: 'the URL may not contain a fragment (#...)' } };
  }
  const match = originPattern.exec(url);
  if (!match) {
    if (url.includes('{{')) return { ok: false, problem: hostProblem() };
    return {
      ok: false,
      problem: {
        code: 'invalid_url',
        message: 'the URL must start with http:// or https:// followed by a host name',
        hint: 'for example https://api.example.com/contacts',
      },
    };
  }
  const origin = match[0];
  const rest = url.slice(origin.length);
  // A placeholder directly after the host could extend it (`https://a.com{{x}}` → `https://a.com.evil.io`).
  if (rest !== '' && !/^[/?]/.test(rest)) return { ok: false, problem: hostProblem() };
  if (!isValidOrigin(origin)) {
    return { ok: false, problem: { code: 'invalid_url', message: `\`${origin}\` is not a valid address` } };
  }
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  return { ok: true, parts: q < 0 ? { origin, path } : { origin, path, query: rest.slice(q + 1) } };
}

/**
 * Refuses a rendered path with `.` or `..` segments: URL parsers would resolve them and climb out
 * of the tool's path (percent-encoding does not help: `%2e%2e` is resolved too).
 *
 * @example
 * assertNoDotSegments('/files/..'); // throws invalid_arguments
 */
export function assertNoDotSegments(path: string): void {
  for (const segment of path.split('/')) {
    const decoded = segment.replace(/%2e/gi, '.');
    if (decoded === '.' || decoded === '..') {
      throw errors.validation(
        'An argument would change the path of the request',
        [{ path: '', code: 'unsafe_path', message: 'a path argument may not be "." or ".."' }],
        'invalid_arguments',
      );
    }
  }
}

function isValidOrigin(origin: string): boolean {
  try {
    return new URL(origin).origin !== 'null';
  } catch {
    return false;
  }
}

function hostProblem(): TemplateProblem {
  return {
    code: 'placeholder_in_host',
    message: 'a placeholder may not stand in the scheme, host or port of the URL',
    hint: 'write the address literally (e.g. https://api.example.com/...) and use placeholders only in the path or query',
  };
}
