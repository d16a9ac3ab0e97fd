import type { EndpointConfig, HttpMethod } from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import { type BodyNode, bodyTemplates, compileBody, renderBody } from './body-template.ts';
import type { RenderedRequest } from './compiled-agent.ts';
import { pointer, readablePath } from './json-pointer.ts';
import { templateSource } from './legacy-placeholders.ts';
import { didYouMean } from './suggest.ts';
import { type CompiledTemplate, compileTemplate, type TemplateView } from './template.ts';
import type { TemplateProblem } from './template-ast.ts';
import { assertHeaderSafe, valueText } from './template-values.ts';
import { assertNoDotSegments, splitUrlTemplate } from './url-template.ts';

/** An endpoint with every template compiled; rendering it needs only a view. */
export interface RequestTemplate {
  method: HttpMethod;
  origin: string;
  path: CompiledTemplate;
  query?: CompiledTemplate;
  queryParams: Array<[string, CompiledTemplate]>;
  headers: Array<[string, CompiledTemplate]>;
  body?: BodyNode;
  /** Names of the secrets the request reads (each must be configured for the tenant). */
  secrets: string[];
  /** Names of the end user's values the request reads (`{{user.email}}` → `email`, `{{user.token}}` → `token`). */
  user: string[];
}

/** What placeholders may refer to for one tool. */
export interface KnownNames {
  parameters: readonly string[];
  context: readonly string[];
  /** The agent's `end_user`: the claims `{{user.x}}` may read and whether `{{user.token}}` may; none: no `{{user.…}}`. */
  user?: { claims: readonly string[]; forwardToken: boolean };
}

/**
 * Compiles an endpoint, reporting every problem with its JSON pointer (`at` is the endpoint's).
 *
 * @example
 * compileRequestTemplate(tool.endpoint, '/tools/0/endpoint', { parameters: ['email'], context: ['dialogId'] });
 */
export function compileRequestTemplate(
  endpoint: EndpointConfig,
  at: string,
  known: KnownNames,
): { ok: true; template: RequestTemplate } | { ok: false; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const located: Array<{ at: string; template: CompiledTemplate }> = [];
  const report = (where: string, problem: TemplateProblem) => issues.push(toIssue(where, problem));
  const compileAt = (
    where: string,
    source: string,
    position: 'path' | 'query' | 'header',
  ): CompiledTemplate | undefined => {
    const compiled = compileTemplate(source, position);
    if (!compiled.ok) {
      for (const problem of compiled.problems) report(where, problem);
      return undefined;
    }
    located.push({ at: where, template: compiled.template });
    return compiled.template;
  };

  const method = endpoint.method ?? 'GET';
  const urlAt = `${at}/url`;
  const split = splitUrlTemplate(templateSource(undefined, endpoint.url));
  if (!split.ok) report(urlAt, split.problem);
  const path = split.ok ? compileAt(urlAt, split.parts.path, 'path') : undefined;
  const query = split.ok && split.parts.query !== undefined ? compileAt(urlAt, split.parts.query, 'query') : undefined;

  const queryParams = entriesOf(endpoint.query_params, `${at}/query_params`, (k, v, where) =>
    compileAt(where, templateSource(k, String(v)), 'query'),
  );
  const headers = entriesOf(endpoint.headers, `${at}/headers`, (k, v, where) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: line breaks in a header are exactly what we refuse.
    if (/[\r\n\u0000]/.test(v)) {
      report(where, { code: 'invalid_header_value', message: 'a header value may not contain line breaks' });
      return undefined;
    }
    return compileAt(where, templateSource(k, v), 'header');
  });

  let body: BodyNode | undefined;
  if (endpoint.body !== undefined) {
    if (method === 'GET' || method === 'HEAD') {
      report(`${at}/body`, {
        code: 'body_not_allowed',
        message: `a ${method} request cannot have a body`,
        hint: 'use query_params for GET requests, or change the method to POST',
      });
    } else {
      const compiled = compileBody(endpoint.body);
      for (const problem of compiled.problems) report(`${at}/body${problem.at}`, problem);
      located.push(...bodyTemplates(compiled.node).map((t) => ({ at: `${at}/body${t.at}`, template: t.template })));
      body = compiled.node;
    }
  }

  const secrets = new Set<string>();
  const user = new Set<string>();
  for (const { at: where, template } of located) {
    for (const ref of template.refs) {
      const problem = referenceProblem(ref.kind, ref.name, where, known, template.source);
      if (problem) report(where, problem);
      if (ref.kind === 'secret') secrets.add(ref.name);
      if (ref.kind === 'user') user.add(ref.name);
    }
  }
  if (user.size > 0 && known.parameters.includes('user')) {
    report(`${at.replace(/\/endpoint$/, '')}/parameters/properties/user`, {
      code: 'reserved_name',
      message: 'a tool whose templates read `{{user.…}}` cannot have a parameter named `user`',
      hint: 'rename the parameter',
    });
  }
  if (issues.length > 0 || !split.ok || !path) return { ok: false, issues };
  return {
    ok: true,
    template: {
      method,
      origin: split.parts.origin,
      path,
      query,
      queryParams,
      headers,
      body,
      secrets: [...secrets],
      user: [...user],
    },
  };
}

/**
 * Renders the exact request for a view. Throws `invalid_arguments` when a value would break out
 * of its position (dot segments, header line breaks).
 */
export function renderRequest(template: RequestTemplate, view: TemplateView): RenderedRequest {
  const path = template.path.render(view);
  assertNoDotSegments(path);
  const pairs: Array<[string, string]> = [];
  for (const [name, t] of template.queryParams) {
    const value = t.value(view);
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([name, valueText(item)]);
  }
  const query = [template.query?.render(view), new URLSearchParams(pairs).toString()].filter(Boolean).join('&');
  const headers: Record<string, string> = {};
  for (const [name, t] of template.headers) {
    const value = t.value(view);
    if (value !== undefined) headers[name] = assertHeaderSafe(valueText(value));
  }
  const url = template.origin + path + (query ? `?${query}` : '');
  if (template.body === undefined) return { method: template.method, url, headers };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  return { method: template.method, url, headers, body: JSON.stringify(renderBody(template.body, view)) };
}

function entriesOf<T>(
  record: Record<string, T> | undefined,
  at: string,
  compile: (key: string, value: T, where: string) => CompiledTemplate | undefined,
): Array<[string, CompiledTemplate]> {
  const out: Array<[string, CompiledTemplate]> = [];
  for (const [key, value] of Object.entries(record ?? {})) {
    const template = compile(key, value, at + pointer(key));
    if (template) out.push([key, template]);
  }
  return out;
}

function referenceProblem(
  kind: 'argument' | 'context' | 'secret' | 'user',
  name: string,
  where: string,
  known: KnownNames,
  source: string,
): TemplateProblem | undefined {
  const place = () => readablePath(where);
  if (kind === 'argument' && !known.parameters.includes(name)) {
    return {
      code: 'unknown_placeholder',
      message: `placeholder \`{{${name}}}\` in ${place()} is not a parameter of this tool`,
      hint:
        didYouMean(name, known.parameters) ??
        `declare \`${name}\` under parameters.properties, or use {{context.${name}}} for a context variable`,
    };
  }
  if (kind === 'context' && !known.context.includes(name)) {
    const autofill = source === `{{context.${name}}}`;
    return {
      code: 'unknown_context_variable',
      message: autofill
        ? `${place()} asks the system to fill \`${name}\`, but there is no context variable with that name`
        : `\`{{context.${name}}}\` in ${place()} is not a known context variable`,
      hint: didYouMean(name, known.context) ?? `known context variables: ${known.context.join(', ')}`,
    };
  }
  if (kind === 'user') return userReferenceProblem(name, place(), known.user);
  if (kind === 'secret' && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) {
    return { code: 'invalid_secret_name', message: `\`${name}\` is not a valid secret name (letters, digits and _)` };
  }
  return undefined;
}

function userReferenceProblem(name: string, place: string, user: KnownNames['user']): TemplateProblem | undefined {
  if (!user) {
    return {
      code: 'unknown_user_claim',
      message: `\`{{user.${name}}}\` in ${place} reads the end user's token, but the agent declares no \`end_user\``,
      hint: `declare it: "end_user": { "claims": [${name === 'token' ? '' : `"${name}"`}]${name === 'token' ? ', "forward_token": true' : ''} }`,
    };
  }
  if (name === 'token') {
    return user.forwardToken
      ? undefined
      : {
          code: 'user_token_not_forwarded',
          message: `\`{{user.token}}\` in ${place} sends the end user's token, but \`end_user.forward_token\` is not true`,
          hint: 'set "forward_token": true in end_user to let tools send the verified token',
        };
  }
  if (user.claims.includes(name)) return undefined;
  return {
    code: 'unknown_user_claim',
    message: `\`{{user.${name}}}\` in ${place} is not a claim declared in \`end_user.claims\``,
    hint:
      didYouMean(name, user.claims) ??
      `add "${name}" to end_user.claims (declared: ${user.claims.join(', ') || 'none'})`,
  };
}

function toIssue(path: string, problem: TemplateProblem): FieldIssue {
  const readable = readablePath(path);
  const message = problem.message.includes(readable) ? problem.message : `${readable}: ${problem.message}`;
  return problem.hint === undefined
    ? { path, code: problem.code, message }
    : { path, code: problem.code, message, hint: problem.hint };
}
