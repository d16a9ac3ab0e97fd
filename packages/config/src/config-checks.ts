import type { FieldIssue } from '@agentry/errors';
import { systemContextVariables } from './context-variables.ts';
import { flowIssues } from './flow-checks.ts';
import { headerNameProblem } from './header-rules.ts';
import { pointer } from './json-pointer.ts';
import { KNOWLEDGE_TOOL_NAME, knowledgeIssues, offersKnowledgeTool } from './knowledge-checks.ts';
import { isDeclaredMcpToolName } from './mcp-servers.ts';
import { parameterSchemaIssues } from './parameter-schema-checks.ts';
import { declaredSkillToolNames } from './skills.ts';
import { didYouMean } from './suggest.ts';

type Json = Record<string, unknown>;

const builtInToolChoices = ['auto', 'none', 'required'];
const idempotent = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/**
 * Cross-field rules the JSON Schema cannot express: names that must exist, unique names, RE2-only
 * patterns, retry and cache safety. Defensive about shape, so it runs on documents the schema rejected too
 * and every problem is reported in the same pass.
 *
 * @example
 * crossFieldIssues({ basic_settings: { name: 'x' }, action_books: [{ condition: 'c', action: 'a', tools: ['nope'] }] });
 */
export function crossFieldIssues(doc: Json): FieldIssue[] {
  const tools = arrayOf(doc.tools);
  const toolNames = tools.map((t) => (isObject(t) && typeof t.name === 'string' ? t.name : undefined));
  // Skills and MCP tools (server__tool) may be named too; MCP tools are only known after discovery.
  const known = [
    ...toolNames.filter((n): n is string => n !== undefined),
    ...declaredSkillToolNames(doc),
    ...(offersKnowledgeTool(doc) ? [KNOWLEDGE_TOOL_NAME] : []),
  ];
  const isKnown = (name: string) => known.includes(name) || isDeclaredMcpToolName(doc, name);
  return [
    ...duplicateToolNames(toolNames),
    ...knowledgeIssues(doc),
    ...actionBookToolIssues(arrayOf(doc.action_books), known, isKnown),
    ...toolChoiceIssues(doc.tool_choice, known, isKnown),
    ...contextVariableIssues(arrayOf(doc.context)),
    ...tools.flatMap((tool, i) => (isObject(tool) ? toolIssues(tool, i) : [])),
    ...flowIssues(doc, {
      isRunnableTool: isKnown,
      clientTools: new Set(
        tools.flatMap((t) => (isObject(t) && t.type === 'client' && typeof t.name === 'string' ? [t.name] : [])),
      ),
      toolNames: known,
      contextNames: contextNames(doc),
    }),
  ];
}

/** Names a template may use as `{{context.x}}`: system variables plus the declared ones. */
export function contextNames(doc: Json): string[] {
  const declared = arrayOf(doc.context)
    .map((c) => (isObject(c) && typeof c.name === 'string' ? c.name : undefined))
    .filter((n): n is string => n !== undefined);
  return [...systemContextVariables, ...declared];
}

function duplicateToolNames(names: Array<string | undefined>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  names.forEach((name, i) => {
    if (name !== undefined && names.indexOf(name) < i) {
      issues.push({
        path: pointer('tools', i, 'name'),
        code: 'duplicate_tool_name',
        message: `tools[${i}] is named \`${name}\`, like tools[${names.indexOf(name)}]`,
        hint: 'each tool needs its own name',
      });
    }
  });
  return issues;
}

function actionBookToolIssues(books: unknown[], tools: string[], isKnown: (name: string) => boolean): FieldIssue[] {
  const issues: FieldIssue[] = [];
  books.forEach((book, i) => {
    if (!isObject(book)) return;
    arrayOf(book.tools).forEach((name, j) => {
      if (typeof name !== 'string' || isKnown(name)) return;
      issues.push({
        path: pointer('action_books', i, 'tools', j),
        code: 'unknown_tool',
        message: `action book ${i + 1} names tool \`${name}\` which does not exist`,
        hint:
          didYouMean(name, tools) ?? (tools.length > 0 ? `tools defined: ${tools.join(', ')}` : 'no tools are defined'),
      });
    });
  });
  return issues;
}

function toolChoiceIssues(choice: unknown, tools: string[], isKnown: (name: string) => boolean): FieldIssue[] {
  if (typeof choice !== 'string' || builtInToolChoices.includes(choice) || isKnown(choice)) return [];
  return [
    {
      path: '/tool_choice',
      code: 'unknown_tool',
      message: `tool_choice is \`${choice}\`, which is neither auto, none, required nor the name of a tool`,
      hint: didYouMean(choice, [...builtInToolChoices, ...tools]),
    },
  ];
}

function contextVariableIssues(variables: unknown[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen: string[] = [];
  variables.forEach((variable, i) => {
    if (!isObject(variable) || typeof variable.name !== 'string') return;
    const path = pointer('context', i, 'name');
    if (systemContextVariables.includes(variable.name)) {
      issues.push({
        path,
        code: 'reserved_context_variable',
        message: `\`${variable.name}\` is filled by the system and cannot be declared`,
        hint: `system variables: ${systemContextVariables.join(', ')}`,
      });
    } else if (seen.includes(variable.name)) {
      issues.push({ path, code: 'duplicate_context_variable', message: `\`${variable.name}\` is declared twice` });
    }
    seen.push(variable.name);
  });
  return issues;
}

function toolIssues(tool: Json, i: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const endpoint = isObject(tool.endpoint) ? tool.endpoint : undefined;
  const method = typeof endpoint?.method === 'string' ? endpoint.method : 'GET';
  const declaredIdempotent = typeof tool.idempotent === 'boolean' ? tool.idempotent : idempotent.has(method);
  if (typeof tool.retries === 'number' && tool.retries > 0 && !declaredIdempotent) {
    issues.push({
      path: pointer('tools', i, 'retries'),
      code: 'retries_not_idempotent',
      message: `tools[${i}] retries a ${method} request, which could repeat its effect (e.g. create two records)`,
      hint: 'retries are only allowed for GET, HEAD, PUT and DELETE, or a tool declared `"idempotent": true`',
    });
  }
  if (isObject(tool.cache)) issues.push(...cacheIssues(tool, i, method, declaredIdempotent));
  for (const name of isObject(endpoint?.headers) ? Object.keys(endpoint.headers) : []) {
    const problem = headerNameProblem(name);
    // Malformed names are the schema's to report; this adds the names that are well-formed but refused.
    if (problem && problem !== 'invalid header name') {
      issues.push({
        path: pointer('tools', i, 'endpoint', 'headers', name),
        code: 'header_not_allowed',
        message: `tools[${i}] may not send the header \`${name}\` (${problem})`,
        hint: 'the HTTP client sets Host, Content-Length and connection headers itself; remove it',
      });
    }
  }
  if (tool.type === 'client' && endpoint) {
    issues.push({
      path: pointer('tools', i, 'endpoint'),
      code: 'endpoint_not_allowed',
      message: `tools[${i}] is a client tool, so the server never calls its endpoint`,
      hint: 'remove the endpoint, or remove "type": "client"',
    });
  }
  if (isObject(tool.parameters))
    issues.push(...parameterSchemaIssues(tool.parameters, pointer('tools', i, 'parameters')));
  return issues;
}

/** Methods that change something: a cached answer would skip the change, so they are never cached. */
const writeMethods = new Set(['PUT', 'DELETE']);

/**
 * `cache` is for reads only: a stored answer stands in for a request that is then never sent. A
 * tool that is not idempotent would lose its effect; a PUT or DELETE is idempotent but still a
 * write (a second identical call after another change must reach the endpoint).
 */
function cacheIssues(tool: Json, i: number, method: string, declaredIdempotent: boolean): FieldIssue[] {
  const path = pointer('tools', i, 'cache');
  if (tool.type === 'client') {
    return [
      {
        path,
        code: 'cache_not_allowed',
        message: `tools[${i}] is a client tool: the page runs it, so there is no response to cache`,
        hint: 'remove cache',
      },
    ];
  }
  if (!declaredIdempotent) {
    return [
      {
        path,
        code: 'cache_not_idempotent',
        message: `tools[${i}] caches a ${method} request that is not idempotent: a cached answer would skip its effect`,
        hint: 'cache only reads: use GET, or declare `"idempotent": true` for a POST that only reads (a search)',
      },
    ];
  }
  if (writeMethods.has(method)) {
    return [
      {
        path,
        code: 'cache_not_idempotent',
        message: `tools[${i}] caches a ${method} request, which changes something: a cached answer would skip the change`,
        hint: 'cache only reads (GET, HEAD, or a POST declared `"idempotent": true` that only reads)',
      },
    ];
  }
  return [];
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
