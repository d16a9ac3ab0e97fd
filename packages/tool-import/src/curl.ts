import { headerNameProblem } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { errors } from '@agentry/errors';
import { parse as shellParse } from 'shell-quote';
import { importLimits } from './limits.ts';
import { argumentName, secretName, toolName } from './names.ts';
import type { ImportResult } from './types.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
/** Headers whose value is a credential: it becomes a secret, never a literal in the config. */
const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|x-api-key|api-key|apikey|x-auth-token|x-access-token)$|token|secret|api[-_]?key|auth/i;
/** Flags that take a value but do not change the request a tool sends. */
const IGNORED_WITH_VALUE = new Set([
  '-o',
  '--output',
  '-m',
  '--max-time',
  '--connect-timeout',
  '--retry',
  '-w',
  '--write-out',
  '--proxy',
  '-x',
  '--cacert',
  '--cert',
  '--key',
  '--resolve',
  '--limit-rate',
  '-c',
  '--cookie-jar',
  '-D',
  '--dump-header',
]);
const IGNORED = new Set([
  '-s',
  '--silent',
  '-S',
  '--show-error',
  '-L',
  '--location',
  '-k',
  '--insecure',
  '-i',
  '--include',
  '-v',
  '--verbose',
  '--compressed',
  '-f',
  '--fail',
  '--fail-with-body',
  '-N',
  '--no-buffer',
  '--http1.1',
  '--http2',
  '-#',
  '--progress-bar',
  '-g',
  '--globoff',
]);

const invalid = (message: string) =>
  errors.validation(message, [{ path: '/source/command', code: 'invalid_curl', message }], 'import_curl_invalid');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * Turns one cURL command line into a tool: `-X`, `-H`, `-d`/`--data`/`--data-raw`/`--data-binary`/
 * `--json` (a JSON object: its keys become arguments), `-G` with `--data-urlencode`/`-d` (query
 * arguments), `-u user:pass` (HTTP Basic from a secret), and the URL's query string (arguments with
 * the given values as defaults). Credentials (`-u`, `Authorization`, API-key headers, cookies) become
 * `{{secrets.NAME}}`; the values are never kept.
 *
 * @example
 * curlToTool(`curl -X POST https://api.example.com/orders -H 'Authorization: Bearer x' -d '{"sku":"A1"}'`);
 */
export function curlToTool(command: string): ImportResult {
  if (command.length > importLimits.maxCurlLength) {
    throw invalid(`The command is longer than ${importLimits.maxCurlLength} characters`);
  }
  // A backslash at a line's end continues the line (as the shell reads it).
  const joined = command.replace(/\\\r?\n/g, ' ').trim();
  const tokens = shellParse(joined, (name) => `$${name}`);
  const words: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') words.push(t);
    else if ('op' in t && t.op === 'glob') words.push(t.pattern);
    else if ('comment' in t) break;
    else throw invalid('Give one curl command: pipes, redirections and command lists are not supported');
  }
  if (words[0] !== 'curl') throw invalid('The command must start with curl');

  let method: string | undefined;
  let url: string | undefined;
  let getMode = false;
  const headers: Array<[string, string]> = [];
  const data: string[] = [];
  const urlencoded: string[] = [];
  let json: string | undefined;
  let user: string | undefined;
  const ignored: string[] = [];
  for (let i = 1; i < words.length; i++) {
    let word = words[i]!;
    let inline: string | undefined;
    if (word.startsWith('--') && word.includes('=')) {
      inline = word.slice(word.indexOf('=') + 1);
      word = word.slice(0, word.indexOf('='));
    } else if (word.length > 2 && /^-[XHdu]/.test(word)) {
      inline = word.slice(2); // -XPOST, -H'…'
      word = word.slice(0, 2);
    }
    const value = () => {
      if (inline !== undefined) return inline;
      const next = words[++i];
      if (next === undefined) throw invalid(`${word} needs a value`);
      return next;
    };
    switch (word) {
      case '-X':
      case '--request':
        method = value().toUpperCase();
        break;
      case '-H':
      case '--header':
        headers.push(splitHeader(value()));
        break;
      case '-d':
      case '--data':
      case '--data-raw':
      case '--data-binary':
      case '--data-ascii':
        data.push(value());
        break;
      case '--json':
        json = value();
        break;
      case '--data-urlencode':
        urlencoded.push(value());
        break;
      case '-G':
      case '--get':
        getMode = true;
        break;
      case '-u':
      case '--user':
        user = value();
        break;
      case '--url':
        url = value();
        break;
      case '-A':
      case '--user-agent':
        headers.push(['User-Agent', value()]);
        break;
      case '-e':
      case '--referer':
        headers.push(['Referer', value()]);
        break;
      case '-b':
      case '--cookie':
        headers.push(['Cookie', value()]);
        break;
      case '-F':
      case '--form':
        throw invalid('Multipart forms (-F) are not supported: tools send JSON bodies');
      default:
        if (IGNORED.has(word)) ignored.push(word);
        else if (IGNORED_WITH_VALUE.has(word)) {
          value();
          ignored.push(word);
        } else if (word.startsWith('-')) throw invalid(`The curl option ${word} is not supported`);
        else if (url === undefined) url = word;
        else throw invalid('Give one URL');
    }
  }
  if (!url) throw invalid('The command has no URL');
  if (!/^https?:\/\//i.test(url)) url = `https://${url}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`Not a URL: ${url.slice(0, 200)}`);
  }
  if (parsed.username || parsed.password) {
    user ??= `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    parsed.username = '';
    parsed.password = '';
  }
  if (json !== undefined) {
    data.push(json);
    if (!headers.some(([n]) => n.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
  }
  const hasBody = data.length > 0 || (urlencoded.length > 0 && !getMode);
  method ??= hasBody && !getMode ? 'POST' : 'GET';
  if (!METHODS.has(method)) throw invalid(`The method ${method} is not one a tool can use`);

  const tools = new Set<string>();
  const name = toolName(
    `${method.toLowerCase()}_${parsed.hostname.split('.').at(-2) ?? ''}_${parsed.pathname}`,
    tools,
    'curl_request',
  );
  const notes: ImportResult['notes'] = [];
  const secrets: ImportResult['secrets'] = [];
  const secretNames = new Set<string>();
  const args = new Set<string>();
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  const query: Record<string, string> = {};
  const outHeaders: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;

  const queryArgument = (key: string, example: string, source: string) => {
    const arg = argumentName(key, args);
    properties[arg] = { type: 'string', description: `The ${key} query parameter (${source})`, default: example };
    query[key] = `{{${arg}}}`;
  };
  for (const [key, val] of parsed.searchParams) queryArgument(key, val, `from the URL, default "${val.slice(0, 100)}"`);
  parsed.search = '';

  const addSecret = (label: string, description: string) => {
    const key = secretName(parsed.hostname.split('.').at(-2) ?? '', label, secretNames);
    secrets.push({ name: key, description });
    return key;
  };
  for (const [header, value] of headers) {
    if (headerNameProblem(header)) {
      notes.push({ tool: name, message: `The header ${header} cannot be set by a tool; left out` });
      continue;
    }
    if (/^content-length$/i.test(header)) continue;
    if (/[{}]/.test(value) || value.includes('todo_autofill_by_system')) {
      notes.push({ tool: name, message: `The header ${header} holds template syntax; left out (add it by hand)` });
      continue;
    }
    if (SECRET_HEADER.test(header)) {
      const bearer = /^(Bearer|Token|Basic)\s+/i.exec(value);
      const key = addSecret(
        /^authorization$/i.test(header) ? (bearer?.[1]?.toLowerCase() === 'basic' ? 'basic_auth' : 'token') : header,
        `The value of the ${header} header${bearer ? ` after "${bearer[1]} "` : ''} (from the curl command; the value there was not kept)`,
      );
      outHeaders[header] = bearer ? `${bearer[1]} {{secrets.${key}}}` : `{{secrets.${key}}}`;
    } else {
      outHeaders[header] = value;
    }
  }
  if (user !== undefined) {
    const key = addSecret(
      'basic_auth',
      'HTTP Basic credentials: base64 of user:password (from curl -u; the value there was not kept)',
    );
    outHeaders.Authorization = `Basic {{secrets.${key}}}`;
  }

  if (getMode) {
    for (const item of [...data, ...urlencoded]) {
      for (const [key, val] of formPairs(item)) queryArgument(key, val, `default "${val.slice(0, 100)}"`);
    }
  } else if (data.length > 0 || urlencoded.length > 0) {
    if (urlencoded.length > 0 || data.length > 1)
      throw invalid('Form-encoded bodies are not supported: tools send JSON (use -G to send them as the query)');
    let value: Json;
    try {
      value = JSON.parse(data[0]!) as Json;
    } catch {
      throw invalid('The body (-d) is not JSON: tools send JSON bodies (use -G to send form data as the query)');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw invalid('The body (-d) must be a JSON object: its keys become the tool’s arguments');
    }
    body = {};
    for (const [key, val] of Object.entries(value)) {
      const arg = argumentName(key, args);
      properties[arg] = { ...schemaOf(val), description: `The ${key} field of the body` };
      required.push(arg);
      body[key] = `{{${arg}}}`;
    }
    if (!headers.some(([n]) => n.toLowerCase() === 'content-type')) outHeaders['Content-Type'] = 'application/json';
  }
  if (ignored.length > 0)
    notes.push({ tool: name, message: `Ignored curl options: ${[...new Set(ignored)].join(' ')}` });

  const endpoint: Record<string, unknown> = { url: parsed.href, method };
  if (Object.keys(outHeaders).length > 0) endpoint.headers = outHeaders;
  if (Object.keys(query).length > 0) endpoint.query_params = query;
  if (body && Object.keys(body).length > 0) endpoint.body = body;
  const parameters: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) parameters.required = required;
  const tool = {
    name,
    description: `${method} ${parsed.origin}${parsed.pathname} (imported from curl: describe when to use it)`,
    type: 'http',
    parameters,
    endpoint,
  } as ToolConfig;
  return {
    tools: [tool],
    secrets,
    notes,
    operations: [{ id: name, method, path: parsed.pathname, summary: '', selected: true }],
  };
}

function splitHeader(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  if (colon <= 0) throw invalid(`Not a header: ${raw.slice(0, 100)}`);
  return [raw.slice(0, colon).trim(), raw.slice(colon + 1).trim()];
}

/** `a=1&b=2` (or one `name=value` of --data-urlencode, whose value is not encoded yet). */
function formPairs(item: string): Array<[string, string]> {
  if (!item.includes('&')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw invalid(`Query data must be name=value: ${item.slice(0, 100)}`);
    return [[item.slice(0, eq), item.slice(eq + 1)]];
  }
  return [...new URLSearchParams(item)];
}

/** A JSON Schema for an example value (objects and arrays keep their shape loosely). */
function schemaOf(value: Json): Record<string, unknown> {
  if (value === null) return {};
  if (Array.isArray(value)) return { type: 'array' };
  switch (typeof value) {
    case 'string':
      return { type: 'string', examples: [value.slice(0, 200)] };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number', examples: [value] };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return { type: 'object' };
  }
}
