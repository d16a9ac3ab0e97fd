import { pointer } from './json-pointer.ts';
import { templateSource } from './legacy-placeholders.ts';
import { type CompiledTemplate, compileTemplate, type TemplateView } from './template.ts';
import type { TemplateProblem } from './template-ast.ts';

/** A JSON body template: the shape of the config's `body`, with every string compiled. */
export type BodyNode =
  | { kind: 'template'; template: CompiledTemplate }
  | { kind: 'object'; entries: Array<[string, BodyNode]> }
  | { kind: 'array'; items: BodyNode[] }
  | { kind: 'literal'; value: unknown };

export interface LocatedProblem extends TemplateProblem {
  /** JSON pointer relative to the body. */
  at: string;
}

/**
 * Compiles every string in a body template (keys stay literal). Problems carry their pointer.
 *
 * @example
 * compileBody({ email: '{email}', dialogId: 'todo_autofill_by_system' });
 */
export function compileBody(value: unknown, at = '', key?: string): { node: BodyNode; problems: LocatedProblem[] } {
  if (typeof value === 'string') {
    const compiled = compileTemplate(templateSource(key, value), 'body');
    if (compiled.ok) return { node: { kind: 'template', template: compiled.template }, problems: [] };
    return { node: { kind: 'literal', value }, problems: compiled.problems.map((p) => ({ ...p, at })) };
  }
  const problems: LocatedProblem[] = [];
  if (Array.isArray(value)) {
    const items = value.map((item, i) => {
      const child = compileBody(item, at + pointer(i));
      problems.push(...child.problems);
      return child.node;
    });
    return { node: { kind: 'array', items }, problems };
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]): [string, BodyNode] => {
      const child = compileBody(v, at + pointer(k), k);
      problems.push(...child.problems);
      return [k, child.node];
    });
    return { node: { kind: 'object', entries }, problems };
  }
  return { node: { kind: 'literal', value }, problems };
}

/**
 * Builds the body value for one call. A whole-value placeholder keeps the value's JSON type and a
 * missing optional value drops its key; interpolated values stay inside their JSON string.
 */
export function renderBody(node: BodyNode, view: TemplateView): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'template':
      return node.template.value(view);
    case 'array':
      return node.items.map((item) => renderBody(item, view) ?? null);
    case 'object': {
      // Null prototype: a `__proto__` key in the template stays an ordinary key.
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, child] of node.entries) {
        const value = renderBody(child, view);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
  }
}

/** All compiled templates of a body, with their pointers, for reference checks. */
export function bodyTemplates(node: BodyNode, at = ''): Array<{ at: string; template: CompiledTemplate }> {
  if (node.kind === 'template') return [{ at, template: node.template }];
  if (node.kind === 'array') return node.items.flatMap((item, i) => bodyTemplates(item, at + pointer(i)));
  if (node.kind === 'object') return node.entries.flatMap(([k, child]) => bodyTemplates(child, at + pointer(k)));
  return [];
}
