import { headerNameProblem } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { argumentName, secretName, toolName } from './names.ts';
import { convertSchema, DropLog, type Schema } from './schema.ts';
import type { ImportNote, OperationSummary, SuggestedSecret } from './types.ts';

/** Methods a tool may use; others (OPTIONS, TRACE) are listed but never imported. */
const TOOL_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
const PATH_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PLACEHOLDER_SERVER = 'https://api.example.com';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One operation of the document, in document order. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  summary: string;
  pathItem: Obj;
  op: Obj;
}

/** Every operation of a (3.x) document's `paths`, in order; at most `max + 1` are read. */
export function listOperations(doc: Obj, max: number): Operation[] {
  const out: Operation[] = [];
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isObj(pathItem)) continue;
    for (const method of PATH_METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const id =
        typeof op.operationId === 'string' && op.operationId !== ''
          ? op.operationId
          : `${method.toUpperCase()} ${path}`;
      const summary =
        typeof op.summary === 'string' ? op.summary : typeof op.description === 'string' ? op.description : '';
      out.push({ id, method: method.toUpperCase(), path, summary: summary.slice(0, 300), pathItem, op });
      if (out.length > max) return out;
    }
  }
  return out;
}

export function operationSummaries(ops: Operation[], picked: Set<string> | undefined): OperationSummary[] {
  return ops.map((o) => ({
    id: o.id,
    method: o.method,
    path: o.path,
    summary: o.summary,
    selected: (picked === undefined || picked.has(o.id)) && TOOL_METHODS.has(o.method),
  }));
}

/** What the document's security schemes turn into: headers or query parameters reading secrets. */
interface AuthPart {
  headers: Record<string, string>;
  query: Record<string, string>;
  secrets: string[];
}

/** Builds tools from the chosen operations of a dereferenced OpenAPI 3.x document. */
export class OpenApiToolBuilder {
  readonly notes: ImportNote[] = [];
  readonly secrets = new Map<string, SuggestedSecret>();
  private readonly toolNames = new Set<string>();
  private readonly secretNames = new Set<string>();
  private readonly schemeSecrets = new Map<string, AuthPart | undefined>();
  private readonly title: string;
  private readonly doc: Obj;
  private readonly baseUrl: string | undefined;

  constructor(doc: Obj, baseUrl: string | undefined) {
    this.doc = doc;
    this.baseUrl = baseUrl;
    this.title = isObj(doc.info) && typeof doc.info.title === 'string' ? doc.info.title : '';
  }

  build(operation: Operation): ToolConfig | undefined {
    const { op, pathItem, method, path } = operation;
    const name = toolName(
      typeof op.operationId === 'string' ? op.operationId : '',
      this.toolNames,
      toolName(`${method.toLowerCase()}_${path}`, new Set(), 'operation'),
    );
    const note = (message: string) => this.notes.push({ tool: name, message });
    if (!TOOL_METHODS.has(method)) {
      this.toolNames.delete(name.toLowerCase());
      this.notes.push({ tool: operation.id, message: `${method} is not a method tools can use; not imported` });
      return undefined;
    }
    const log = new DropLog();
    const argNames = new Set<string>();
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    const headers: Record<string, string> = {};
    const query: Record<string, string> = {};
    const pathArgs = new Map<string, string>();

    const parameters = mergeParameters(pathItem.parameters, op.parameters);
    for (const p of parameters) {
      const pname = typeof p.name === 'string' ? p.name : '';
      const where = String(p.in);
      if (where === 'cookie') {
        note(`The cookie parameter ${pname} is not supported; left out`);
        continue;
      }
      if (where === 'header' && (headerNameProblem(pname) || /^(accept|content-type|authorization)$/i.test(pname))) {
        if (!/^(accept|content-type|authorization)$/i.test(pname))
          note(`The header ${pname} cannot be set by a tool; left out`);
        continue;
      }
      if (!['path', 'query', 'header'].includes(where) || pname === '') continue;
      if (Object.keys(properties).length >= 64) {
        note(`More than 64 arguments; the ${where} parameter ${pname} and later ones are left out`);
        continue;
      }
      if (where === 'header' && Object.keys(headers).length >= 24) {
        note(`More than 24 header parameters; ${pname} is left out`);
        continue;
      }
      if (where === 'query' && Object.keys(query).length >= 45) {
        note(`More than 45 query parameters; ${pname} is left out`);
        continue;
      }
      const arg = argumentName(pname, argNames);
      const schema = convertSchema(parameterSchema(p), `/${arg}`, log);
      const description = typeof p.description === 'string' ? p.description.trim().slice(0, 1024) : '';
      if (description && schema.description === undefined) schema.description = description;
      properties[arg] = schema;
      if (p.required === true || where === 'path') required.push(arg);
      if (
        where === 'query' &&
        (p.explode === false || (p.style !== undefined && p.style !== 'form')) &&
        !['string', 'integer', 'number', 'boolean'].includes(String((parameterSchema(p) as Obj).type))
      ) {
        note(
          `The query parameter ${pname} is sent as repeated name=value pairs (form style, exploded), not as ${String(p.style ?? 'form')}${p.explode === false ? ' without explode' : ''}`,
        );
      }
      const placeholder = `{{${arg}}}`;
      if (where === 'path') pathArgs.set(pname, placeholder);
      else if (where === 'query') query[pname] = placeholder;
      else headers[pname] = placeholder;
    }

    let body: Record<string, unknown> | undefined;
    const requestBody = isObj(op.requestBody) ? op.requestBody : undefined;
    if (requestBody) {
      const media = jsonMedia(requestBody.content);
      if (!media) {
        const types = isObj(requestBody.content) ? Object.keys(requestBody.content).join(', ') : 'none';
        note(`The request body (${types}) is not JSON; only JSON bodies are supported, so it is left out`);
      } else if (method === 'GET' || method === 'HEAD') {
        note(`A ${method} request has no body; the request body is left out`);
      } else {
        const fields = objectFields(media);
        if (!fields) {
          note(
            'The request body is not a JSON object with properties; only object bodies are supported, so it is left out',
          );
        } else {
          body = {};
          for (const [key, sub] of Object.entries(fields.properties)) {
            if (isObj(sub) && sub.readOnly === true) continue;
            if (Object.keys(properties).length >= 64) {
              note(`More than 64 arguments; the body field ${key} and later ones are left out`);
              break;
            }
            const arg = argumentName(
              argNames.has(argumentName(key, new Set()).toLowerCase()) ? `body_${key}` : key,
              argNames,
            );
            properties[arg] = convertSchema(sub, `/${arg}`, log);
            if (fields.required.has(key) && requestBody.required !== false) required.push(arg);
            body[key] = `{{${arg}}}`;
          }
        }
      }
    }

    const auth = this.auth(op, note);
    const base = this.server(op, pathItem, note);
    const url = `${base}${pathTemplate(path, pathArgs)}`;
    if (url.length > 2048) {
      this.toolNames.delete(name.toLowerCase());
      this.notes.push({ tool: operation.id, message: 'The URL is longer than 2048 characters; not imported' });
      return undefined;
    }
    const description =
      [op.summary, op.description]
        .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
        .map((s) => s.trim())
        .join('\n\n')
        .slice(0, 1024) || `${method} ${path}`;
    const dropped = log.message();
    if (dropped) note(dropped);

    const parametersSchema: Schema = { type: 'object', properties };
    if (required.length > 0) parametersSchema.required = [...new Set(required)];
    const endpoint: Obj = { url, method };
    const allHeaders = { ...headers, ...auth?.headers };
    if (Object.keys(allHeaders).length > 0) endpoint.headers = allHeaders;
    const allQuery = { ...query, ...auth?.query };
    if (Object.keys(allQuery).length > 0) endpoint.query_params = allQuery;
    if (body && Object.keys(body).length > 0) endpoint.body = body;
    return {
      name,
      description,
      type: 'http',
      parameters: parametersSchema,
      endpoint,
    } as ToolConfig;
  }

  /** The operation's server (operation, path, document, in that order), absolute, variables filled. */
  private server(op: Obj, pathItem: Obj, note: (m: string) => void): string {
    const servers = [op.servers, pathItem.servers, this.doc.servers].find((s) => Array.isArray(s) && s.length > 0) as
      | Obj[]
      | undefined;
    const first = servers?.[0];
    let url = isObj(first) && typeof first.url === 'string' ? first.url : '';
    if (isObj(first) && isObj(first.variables)) {
      for (const [name, v] of Object.entries(first.variables)) {
        if (isObj(v) && v.default !== undefined) url = url.split(`{${name}}`).join(String(v.default));
      }
    }
    try {
      const absolute = new URL(url, this.baseUrl ?? undefined);
      if (absolute.protocol === 'http:' || absolute.protocol === 'https:') {
        absolute.search = '';
        absolute.hash = '';
        return literalUrl(absolute.href.replace(/\/+$/, ''));
      }
    } catch {
      // relative without a base: below
    }
    note(`The document names no absolute server URL; ${PLACEHOLDER_SERVER} stands in: change the endpoint's URL`);
    return PLACEHOLDER_SERVER + (url.startsWith('/') ? literalUrl(url.split(/[?#]/)[0]!.replace(/\/+$/, '')) : '');
  }

  /** Headers and query parameters for the first security requirement whose schemes we can map. */
  private auth(op: Obj, note: (m: string) => void): AuthPart | undefined {
    const requirements = (Array.isArray(op.security) ? op.security : this.doc.security) as unknown;
    if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
    const skipped: string[] = [];
    for (const requirement of requirements) {
      if (!isObj(requirement)) continue;
      const names = Object.keys(requirement);
      if (names.length === 0) return undefined; // `{}`: anonymous access is allowed
      const parts = names.map((n) => this.scheme(n));
      if (parts.every((p) => p !== undefined)) {
        const merged: AuthPart = { headers: {}, query: {}, secrets: [] };
        for (const p of parts as AuthPart[]) {
          Object.assign(merged.headers, p.headers);
          Object.assign(merged.query, p.query);
        }
        return merged;
      }
      skipped.push(names.join(' + '));
    }
    note(`No supported authentication (${skipped.join(', ')}): add it to the endpoint by hand`);
    return undefined;
  }

  private scheme(name: string): AuthPart | undefined {
    if (this.schemeSecrets.has(name)) return this.schemeSecrets.get(name);
    const schemes =
      isObj(this.doc.components) && isObj(this.doc.components.securitySchemes)
        ? this.doc.components.securitySchemes
        : {};
    const s = schemes[name];
    let part: AuthPart | undefined;
    const secret = (description: string) => {
      const secretKey = secretName(this.title, name, this.secretNames);
      this.secrets.set(secretKey, { name: secretKey, description });
      return secretKey;
    };
    if (isObj(s)) {
      const type = String(s.type);
      const scheme = String(s.scheme ?? '').toLowerCase();
      if (type === 'apiKey' && typeof s.name === 'string') {
        const where = String(s.in);
        if (where === 'header' && !headerNameProblem(s.name)) {
          const key = secret(`API key sent in the ${s.name} header (security scheme ${name})`);
          part = { headers: { [s.name]: `{{secrets.${key}}}` }, query: {}, secrets: [key] };
        } else if (where === 'query') {
          const key = secret(`API key sent as the ${s.name} query parameter (security scheme ${name})`);
          part = { headers: {}, query: { [s.name]: `{{secrets.${key}}}` }, secrets: [key] };
        } else if (where === 'cookie' && COOKIE_NAME.test(s.name)) {
          const key = secret(`API key sent as the ${s.name} cookie (security scheme ${name})`);
          part = { headers: { Cookie: `${s.name}={{secrets.${key}}}` }, query: {}, secrets: [key] };
        }
      } else if (type === 'http' && scheme === 'bearer') {
        const key = secret(`Bearer token (security scheme ${name})`);
        part = { headers: { Authorization: `Bearer {{secrets.${key}}}` }, query: {}, secrets: [key] };
      } else if (type === 'http' && scheme === 'basic') {
        const key = secret(`HTTP Basic credentials: base64 of user:password (security scheme ${name})`);
        part = { headers: { Authorization: `Basic {{secrets.${key}}}` }, query: {}, secrets: [key] };
      } else if (type === 'oauth2' || type === 'openIdConnect') {
        const key = secret(`An access token obtained outside Agentry, sent as a bearer token (${type} scheme ${name})`);
        part = { headers: { Authorization: `Bearer {{secrets.${key}}}` }, query: {}, secrets: [key] };
      }
    }
    this.schemeSecrets.set(name, part);
    return part;
  }
}

/** A cookie name (an HTTP token): nothing a template would read. */
const COOKIE_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/**
 * A URL part taken from the document as text, never as a template: braces are percent-encoded, so
 * a document cannot smuggle `{{secrets.X}}` (or the seed's `{x}`) into the tool's request.
 */
export function literalUrl(text: string): string {
  return text.replaceAll('{', '%7B').replaceAll('}', '%7D');
}

/** The path with each declared path parameter as its placeholder, everything else literal. */
function pathTemplate(path: string, args: Map<string, string>): string {
  let out = '';
  let rest = path;
  for (;;) {
    const open = rest.indexOf('{');
    const close = open < 0 ? -1 : rest.indexOf('}', open);
    if (open < 0 || close < 0) return out + literalUrl(rest);
    const placeholder = args.get(rest.slice(open + 1, close));
    out += literalUrl(rest.slice(0, open)) + (placeholder ?? literalUrl(rest.slice(open, close + 1)));
    rest = rest.slice(close + 1);
  }
}

/** Path-level parameters overridden by operation ones with the same name and location. */
function mergeParameters(common: unknown, own: unknown): Obj[] {
  const byKey = new Map<string, Obj>();
  for (const list of [common, own]) {
    if (!Array.isArray(list)) continue;
    for (const p of list) if (isObj(p)) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  }
  return [...byKey.values()];
}

function parameterSchema(p: Obj): unknown {
  if (isObj(p.schema)) return p.schema;
  if (isObj(p.content)) {
    const first = Object.values(p.content)[0];
    if (isObj(first) && isObj(first.schema)) return first.schema;
  }
  return { type: 'string' };
}

/** The schema of the JSON media type of a request body, if it has one. */
function jsonMedia(content: unknown): Obj | undefined {
  if (!isObj(content)) return undefined;
  for (const [type, media] of Object.entries(content)) {
    if (/^application\/(.+\+)?json\b/i.test(type) || type === '*/*') {
      if (isObj(media) && isObj(media.schema)) return media.schema;
    }
  }
  return undefined;
}

/** The properties of an object schema (its `allOf` parts merged), or undefined when it is not one. */
function objectFields(schema: Obj, depth = 0): { properties: Obj; required: Set<string> } | undefined {
  if (depth > 8 || typeof schema.$ref === 'string') return undefined;
  const properties: Obj = {};
  const required = new Set<string>();
  let found = false;
  if (isObj(schema.properties)) {
    found = true;
    Object.assign(properties, schema.properties);
  }
  if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string') required.add(r);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      if (!isObj(part)) continue;
      const sub = objectFields(part, depth + 1);
      if (!sub) return undefined;
      found = true;
      Object.assign(properties, sub.properties);
      for (const r of sub.required) required.add(r);
    }
  }
  return found ? { properties, required } : undefined;
}
