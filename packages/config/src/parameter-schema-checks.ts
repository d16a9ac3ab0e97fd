import type { FieldIssue } from '@agentry/errors';
import { pointer, readablePath } from './json-pointer.ts';
import { linearPatternError } from './linear-regexp.ts';
import { didYouMean } from './suggest.ts';

type Json = Record<string, unknown>;

/** Walks a parameters schema: RE2-only patterns, `required` names that exist, local `$ref`s that resolve. */
export function parameterSchemaIssues(root: Json, rootPath: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const defs = isObject(root.$defs) ? Object.keys(root.$defs) : [];
  const stack: Array<[Json, string]> = [[root, rootPath]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node.pattern === 'string') {
      const problem = linearPatternError(node.pattern);
      if (problem) {
        issues.push({
          path: `${path}/pattern`,
          code: 'unsupported_pattern',
          message: `${readablePath(`${path}/pattern`)} cannot run safely (${problem})`,
          hint: 'patterns use RE2 syntax: look-arounds and back-references are not supported',
        });
      }
    }
    if (typeof node.$ref === 'string') {
      const target = node.$ref.replace(/^#\/\$defs\//, '');
      if (!defs.includes(target)) {
        issues.push({
          path: `${path}/$ref`,
          code: 'unknown_ref',
          message: `${readablePath(`${path}/$ref`)} points to \`${node.$ref}\`, which is not defined under $defs`,
          hint: didYouMean(target, defs),
        });
      }
    }
    const properties = isObject(node.properties) ? node.properties : {};
    arrayOf(node.required).forEach((name, j) => {
      if (typeof name === 'string' && !Object.hasOwn(properties, name)) {
        issues.push({
          path: `${path}/required/${j}`,
          code: 'unknown_required',
          message: `${readablePath(path)} requires \`${name}\`, which is not one of its properties`,
          hint: didYouMean(name, Object.keys(properties)),
        });
      }
    });
    for (const [key, child] of childSchemas(node)) stack.push([child, `${path}${key}`]);
  }
  return issues.map((issue) =>
    issue.hint === undefined ? { path: issue.path, code: issue.code, message: issue.message } : issue,
  );
}

function childSchemas(node: Json): Array<[string, Json]> {
  const out: Array<[string, Json]> = [];
  for (const key of ['properties', '$defs']) {
    const group = node[key];
    if (isObject(group))
      for (const [name, child] of Object.entries(group))
        if (isObject(child)) out.push([`/${key}${pointer(name)}`, child]);
  }
  if (isObject(node.items)) out.push(['/items', node.items]);
  if (isObject(node.not)) out.push(['/not', node.not]);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    arrayOf(node[key]).forEach((child, j) => {
      if (isObject(child)) out.push([`/${key}/${j}`, child]);
    });
  }
  return out;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
