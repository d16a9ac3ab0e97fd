import { templateHelperNames } from './template-engine.ts';

/**
 * What a placeholder refers to: a model argument, a context variable, a tenant secret or a value of
 * the verified end user (`{{user.email}}`, `{{user.token}}`).
 */
export interface TemplateRef {
  kind: 'argument' | 'context' | 'secret' | 'user';
  name: string;
}

/** A problem in one template, before it is given a JSON pointer by the caller. */
export interface TemplateProblem {
  code: string;
  message: string;
  hint?: string;
}

type Node = hbs.AST.Node;
type Expression = hbs.AST.Expression;

// Names that would walk into JavaScript object internals; refused whatever Handlebars allows.
const forbiddenNames = new Set(['constructor', 'prototype', '__proto__', 'this']);
const helperNames = new Set<string>(templateHelperNames);
const shapeHint = 'use {{name}} for an argument, {{context.name}}, {{secrets.NAME}} or {{user.claim}}';

/**
 * Walks a parsed template and collects its references, refusing everything except content,
 * comments and mustaches that read a reference or call one of our helpers.
 *
 * @example
 * inspectTemplate(handlebars.parse('Hi {{lower name}}')); // { refs: [{ kind: 'argument', name: 'name' }], problems: [] }
 */
export function inspectTemplate(program: hbs.AST.Program): { refs: TemplateRef[]; problems: TemplateProblem[] } {
  const refs: TemplateRef[] = [];
  const problems: TemplateProblem[] = [];
  for (const statement of program.body) {
    if (statement.type === 'ContentStatement' || statement.type === 'CommentStatement') continue;
    if (statement.type !== 'MustacheStatement') {
      problems.push({
        code: 'template_not_allowed',
        message: `${describe(statement)} is not allowed in templates`,
        hint: `only placeholders are supported: ${shapeHint}, optionally through the helpers ${templateHelperNames.join(', ')}`,
      });
      continue;
    }
    const mustache = statement as hbs.AST.MustacheStatement;
    if (!mustache.escaped) {
      problems.push(unescapedProblem(mustache));
      continue;
    }
    inspectCall(mustache, refs, problems);
  }
  return { refs, problems };
}

/** The single plain reference when the template is exactly one `{{ref}}` (whole-value placeholder). */
export function wholeValueRef(program: hbs.AST.Program): hbs.AST.PathExpression | undefined {
  if (program.body.length !== 1) return undefined;
  const only = program.body[0] as hbs.AST.MustacheStatement;
  if (only.type !== 'MustacheStatement' || only.params.length > 0 || only.path.type !== 'PathExpression')
    return undefined;
  return only.path as hbs.AST.PathExpression;
}

function inspectCall(
  call: hbs.AST.MustacheStatement | hbs.AST.SubExpression,
  refs: TemplateRef[],
  problems: TemplateProblem[],
): void {
  if (call.path.type !== 'PathExpression') {
    problems.push({ code: 'template_bad_reference', message: 'a placeholder must name a value', hint: shapeHint });
    return;
  }
  const path = call.path as hbs.AST.PathExpression;
  const hasHash = (call.hash?.pairs.length ?? 0) > 0;
  if (call.params.length === 0 && !hasHash) {
    const ref = referenceOf(path, problems);
    if (ref) refs.push(ref);
    return;
  }
  if (!helperNames.has(path.original) || hasHash) {
    problems.push({
      code: 'template_unknown_helper',
      message: `\`${path.original}\` is not a template helper`,
      hint: `available helpers: ${templateHelperNames.join(', ')}`,
    });
    return;
  }
  for (const param of call.params) inspectParam(param, refs, problems);
}

function inspectParam(param: Expression, refs: TemplateRef[], problems: TemplateProblem[]): void {
  if (param.type === 'PathExpression') {
    const ref = referenceOf(param as hbs.AST.PathExpression, problems);
    if (ref) refs.push(ref);
  } else if (param.type === 'SubExpression') {
    inspectCall(param as hbs.AST.SubExpression, refs, problems);
  } else if (!['StringLiteral', 'NumberLiteral', 'BooleanLiteral'].includes(param.type)) {
    problems.push({ code: 'template_bad_reference', message: `${param.type} is not allowed as a helper argument` });
  }
}

function referenceOf(path: hbs.AST.PathExpression, problems: TemplateProblem[]): TemplateRef | undefined {
  const forbidden = path.parts.find((part) => forbiddenNames.has(part) || part.startsWith('__'));
  if (path.data || path.depth > 0 || forbidden !== undefined || path.parts.length === 0) {
    problems.push({
      code: 'template_forbidden_reference',
      message: `\`${path.original}\` may not be used in a template`,
      hint: shapeHint,
    });
    return undefined;
  }
  const [head = '', name, ...rest] = path.parts;
  if (path.parts.length === 1 && head !== 'context' && head !== 'secrets') return { kind: 'argument', name: head };
  if (name !== undefined && rest.length === 0 && head === 'context') return { kind: 'context', name };
  if (name !== undefined && rest.length === 0 && head === 'secrets') return { kind: 'secret', name };
  // `{{user}}` alone stays an argument named `user` (configs had it before `{{user.x}}` existed).
  if (name !== undefined && rest.length === 0 && head === 'user') return { kind: 'user', name };
  problems.push({
    code: 'template_bad_reference',
    message: `\`{{${path.original}}}\` is not a valid placeholder`,
    hint: shapeHint,
  });
  return undefined;
}

/**
 * `{{{x}}}` and `{{& x}}` (Handlebars' unescaped output) are not template syntax: nothing is ever
 * HTML-escaped here (each value is encoded for where it stands), so they would only be a second
 * spelling of `{{x}}` that the documentation does not know.
 */
function unescapedProblem(mustache: hbs.AST.MustacheStatement): TemplateProblem {
  const inner =
    mustache.path.type === 'PathExpression' && mustache.params.length === 0
      ? (mustache.path as hbs.AST.PathExpression).original
      : 'name';
  return {
    code: 'template_triple_stash',
    message: `\`{{{${inner}}}}\` (unescaped output) is not template syntax`,
    hint: `write {{${inner}}}: values are never HTML-escaped, each is encoded for its place (path, query, header or JSON body)`,
  };
}

function describe(node: Node): string {
  if (node.type === 'BlockStatement') return 'a block ({{#...}})';
  if (node.type === 'PartialStatement' || node.type === 'PartialBlockStatement') return 'a partial ({{> ...}})';
  if (node.type.startsWith('Decorator')) return 'a decorator ({{* ...}})';
  return node.type;
}
