import { LRUCache } from 'lru-cache';
import { inspectTemplate, type TemplateProblem, type TemplateRef, wholeValueRef } from './template-ast.ts';
import { compileOptions, encodeHelperName, handlebars, runtimeOptions } from './template-engine.ts';
import { encodeFor, type TemplatePosition } from './template-values.ts';

// Compiled templates are immutable, so configs that share a template (`Bearer {{secrets.TOKEN}}`)
// share one compilation. Bounded, like every cache fed by tenant content.
const compiledTemplates = new LRUCache<string, TemplateCompilation>({ max: 10_000 });

/**
 * Values a template may read: declared arguments at the top, `context` and `secrets` beside them,
 * and `user` (the verified end user's values) for templates that read `{{user.x}}`.
 */
export type TemplateView = Record<string, unknown> & {
  context: Record<string, unknown>;
  secrets: Record<string, unknown>;
  user?: Record<string, unknown>;
};

/** A template compiled once at load, rendered per call in a single pass (output never re-parsed). */
export interface CompiledTemplate {
  source: string;
  refs: TemplateRef[];
  /** Set when the template is exactly one placeholder: the value keeps its JSON type. */
  whole?: TemplateRef;
  /** The text with every placeholder encoded for the template's position. */
  render(view: TemplateView): string;
  /** The raw value for whole-value templates (undefined when missing), else `render`. */
  value(view: TemplateView): unknown;
}

export type TemplateCompilation = { ok: true; template: CompiledTemplate } | { ok: false; problems: TemplateProblem[] };

/**
 * Parses, checks and compiles one template for a position.
 *
 * @example
 * const t = compileTemplate('/orders/{{id}}', 'path');
 * if (t.ok) t.template.render(view); // '/orders/A%2F1' for id 'A/1'
 */
export function compileTemplate(source: string, position: TemplatePosition): TemplateCompilation {
  const key = `${position}\u0000${source}`;
  let compiled = compiledTemplates.get(key);
  if (!compiled) {
    compiled = compileUncached(source, position);
    compiledTemplates.set(key, compiled);
  }
  return compiled;
}

function compileUncached(source: string, position: TemplatePosition): TemplateCompilation {
  let program: hbs.AST.Program;
  try {
    program = handlebars.parse(source);
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/\s+/g, ' ').slice(0, 200) : '';
    return { ok: false, problems: [{ code: 'template_syntax', message: `the template cannot be read (${detail})` }] };
  }
  const { refs, problems } = inspectTemplate(program);
  if (problems.length > 0) return { ok: false, problems };
  if (refs.length === 0 && program.body.every((s) => s.type !== 'MustacheStatement')) {
    const text = program.body
      .map((s) => (s.type === 'ContentStatement' ? (s as hbs.AST.ContentStatement).value : ''))
      .join('');
    return { ok: true, template: constantTemplate(source, text) };
  }
  const whole = wholeValueRef(program) ? refs[0] : undefined;
  if (whole) {
    // One plain placeholder: a direct lookup keeps the value's type; Handlebars is not needed.
    const template: CompiledTemplate = {
      source,
      refs,
      whole,
      render: (view) => encodeFor(position, lookup(view, whole)),
      value: (view) => lookup(view, whole),
    };
    return { ok: true, template };
  }
  const run = handlebars.compile(wrapPlaceholders(program, encodeHelperName[position]), compileOptions);
  const render = (view: TemplateView) => run(view, runtimeOptions);
  try {
    // Handlebars compiles lazily; force it now so a broken template fails at upload, not mid-run.
    render({ context: {}, secrets: {} });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problems: [{ code: 'template_invalid', message: `the template cannot be compiled (${detail})` }],
    };
  }
  return { ok: true, template: { source, refs, render, value: render } };
}

/** Reads a reference from a view without touching prototypes. */
export function lookup(view: TemplateView, ref: TemplateRef): unknown {
  const scope: Record<string, unknown> | undefined =
    ref.kind === 'argument'
      ? view
      : ref.kind === 'context'
        ? view.context
        : ref.kind === 'secret'
          ? view.secrets
          : view.user;
  return scope && Object.hasOwn(scope, ref.name) ? scope[ref.name] : undefined;
}

function constantTemplate(source: string, text: string): CompiledTemplate {
  return { source, refs: [], render: () => text, value: () => text };
}

/** Routes every placeholder's output through the position's encoding helper. */
function wrapPlaceholders(program: hbs.AST.Program, helper: string): hbs.AST.Program {
  const body = program.body.map((statement) => {
    if (statement.type !== 'MustacheStatement') return statement;
    const m = statement as hbs.AST.MustacheStatement;
    const inner =
      m.params.length === 0
        ? m.path
        : ({
            type: 'SubExpression',
            path: m.path,
            params: m.params,
            hash: m.hash,
            loc: m.loc,
          } as hbs.AST.SubExpression);
    const path = { type: 'PathExpression', data: false, depth: 0, parts: [helper], original: helper, loc: m.loc };
    return { ...m, path, params: [inner], hash: undefined } as unknown as hbs.AST.MustacheStatement;
  });
  return { ...program, body };
}
