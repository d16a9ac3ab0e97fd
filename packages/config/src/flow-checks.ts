import type { FieldIssue } from '@agentry/errors';
import { readablePath } from './json-pointer.ts';
import { linearPatternError } from './linear-regexp.ts';
import { parameterSchemaIssues } from './parameter-schema-checks.ts';
import { argumentsValidator } from './parameters-validator.ts';
import { didYouMean } from './suggest.ts';
import { compileTemplate } from './template.ts';

type Json = Record<string, unknown>;

/** Slot names that would shadow what templates and branches read beside the slots. */
const RESERVED_SLOTS = new Set(['result', 'context', 'secrets', 'user']);

/** What a step type needs besides id and type. */
const REQUIRED_FIELDS: Record<string, string[]> = {
  ask: ['slot', 'prompt'],
  confirm: ['prompt'],
  tool: ['tool'],
  reply: ['message'],
  branch: ['branches'],
};

export interface FlowCheckInput {
  /** Tools a tool step may call: HTTP tools, skills and the MCP tools the config names. */
  isRunnableTool(name: string): boolean;
  /** Client tools run in the browser: a flow cannot wait for them. */
  clientTools: ReadonlySet<string>;
  toolNames: readonly string[];
  contextNames: readonly string[];
}

/**
 * Cross-field rules of `flows[]`: unique names and step ids, steps that exist wherever a step is
 * named, slots that exist, tools a flow can call, RE2 patterns, valid JSON Schemas, and templates
 * that read only slots, `result` and context — never secrets or end-user values, because what a
 * flow says reaches the user.
 *
 * @example
 * flowIssues(doc, { isRunnableTool: (n) => n === 'create_leave_request', clientTools: new Set(), toolNames: ['create_leave_request'], contextNames: [] });
 */
export function flowIssues(doc: Json, input: FlowCheckInput): FieldIssue[] {
  const flows = Array.isArray(doc.flows) ? doc.flows : [];
  const names = flows.map((f) => (isObject(f) && typeof f.name === 'string' ? f.name : undefined));
  const issues: FieldIssue[] = [];
  flows.forEach((flow, i) => {
    if (!isObject(flow)) return;
    const base = `/flows/${i}`;
    if (typeof flow.name === 'string' && names.indexOf(flow.name) < i) {
      issues.push({
        path: `${base}/name`,
        code: 'duplicate_flow_name',
        message: `flows[${i}] is named \`${flow.name}\`, like flows[${names.indexOf(flow.name)}]`,
      });
    }
    issues.push(...patternIssues(flow, base), ...slotIssues(flow, base), ...stepIssues(flow, base, input));
  });
  return issues;
}

function patternIssues(flow: Json, base: string): FieldIssue[] {
  const triggers = isObject(flow.triggers) && Array.isArray(flow.triggers.patterns) ? flow.triggers.patterns : [];
  return triggers.flatMap((pattern, j) => rePatternIssue(pattern, `${base}/triggers/patterns/${j}`));
}

function rePatternIssue(pattern: unknown, path: string): FieldIssue[] {
  if (typeof pattern !== 'string') return [];
  const problem = linearPatternError(pattern);
  if (!problem) return [];
  return [
    {
      path,
      code: 'unsupported_pattern',
      message: `${readablePath(path)} cannot run safely (${problem})`,
      hint: 'patterns use RE2 syntax: look-arounds and back-references are not supported',
    },
  ];
}

function slotIssues(flow: Json, base: string): FieldIssue[] {
  const slots = isObject(flow.slots) ? flow.slots : {};
  return Object.entries(slots).flatMap(([name, slot]) => {
    const path = `${base}/slots/${name}`;
    const issues: FieldIssue[] = [];
    if (RESERVED_SLOTS.has(name)) {
      issues.push({
        path,
        code: 'reserved_slot_name',
        message: `a slot cannot be named \`${name}\``,
        hint: `${[...RESERVED_SLOTS].join(', ')} are read beside the slots`,
      });
    }
    if (!isObject(slot)) return issues;
    issues.push(...rePatternIssue(slot.pattern, `${path}/pattern`));
    if (isObject(slot.schema)) issues.push(...schemaIssues(slot.schema, `${path}/schema`));
    return issues;
  });
}

function schemaIssues(schema: Json, path: string): FieldIssue[] {
  const issues = parameterSchemaIssues(schema, path);
  if (issues.length > 0) return issues;
  try {
    argumentsValidator({ type: 'object', properties: { value: schema } });
    return [];
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return [{ path, code: 'invalid_schema', message: `${readablePath(path)} is not a usable JSON Schema (${detail})` }];
  }
}

function stepIssues(flow: Json, base: string, input: FlowCheckInput): FieldIssue[] {
  const steps = Array.isArray(flow.steps) ? flow.steps.filter(isObject) : [];
  const ids = steps.map((s) => (typeof s.id === 'string' ? s.id : ''));
  const slots = isObject(flow.slots) ? Object.keys(flow.slots) : [];
  const saved = steps.flatMap((s) => (isObject(s.save) ? Object.keys(s.save) : []));
  const readable = new Set([...slots, ...saved, 'result']);
  const issues: FieldIssue[] = [];
  steps.forEach((step, k) => {
    const path = `${base}/steps/${k}`;
    if (typeof step.id === 'string' && ids.indexOf(step.id) < k) {
      issues.push({ path: `${path}/id`, code: 'duplicate_step_id', message: `step id \`${step.id}\` is used twice` });
    }
    for (const field of REQUIRED_FIELDS[String(step.type)] ?? []) {
      if (step[field] === undefined) {
        issues.push({
          path: `${path}/${field}`,
          code: 'missing_field',
          message: `a ${String(step.type)} step needs \`${field}\``,
        });
      }
    }
    issues.push(...stepReferenceIssues(step, path, ids));
    if (step.type === 'ask' && typeof step.slot === 'string' && !slots.includes(step.slot)) {
      issues.push({
        path: `${path}/slot`,
        code: 'unknown_slot',
        message: `step \`${String(step.id)}\` asks for slot \`${step.slot}\`, which the flow does not declare`,
        hint:
          didYouMean(step.slot, slots) ?? (slots.length > 0 ? `slots: ${slots.join(', ')}` : 'declare it under slots'),
      });
    }
    if (step.type === 'tool') issues.push(...toolStepIssues(step, path, input));
    if (step.type === 'branch' && Array.isArray(step.branches)) {
      step.branches.forEach((branch, b) => {
        if (isObject(branch) && isObject(branch.when))
          issues.push(...schemaIssues(branch.when, `${path}/branches/${b}/when`));
      });
    }
    issues.push(...stepTemplateIssues(step, path, readable, input.contextNames));
  });
  return issues;
}

function stepReferenceIssues(step: Json, path: string, ids: string[]): FieldIssue[] {
  const refs: Array<[string, unknown]> = [
    ['next', step.next],
    ['yes', step.yes],
    ['no', step.no],
    ['else', step.else],
    ['on_error', step.on_error],
    ...(Array.isArray(step.branches)
      ? step.branches.map((b, i): [string, unknown] => [`branches/${i}/goto`, isObject(b) ? b.goto : undefined])
      : []),
  ];
  return refs.flatMap(([field, target]) =>
    typeof target === 'string' && !ids.includes(target)
      ? [
          {
            path: `${path}/${field}`,
            code: 'unknown_step',
            message: `${readablePath(`${path}/${field}`)} goes to step \`${target}\`, which the flow does not have`,
            hint: didYouMean(target, ids) ?? `steps: ${ids.join(', ')}`,
          },
        ]
      : [],
  );
}

function toolStepIssues(step: Json, path: string, input: FlowCheckInput): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (typeof step.tool === 'string' && input.clientTools.has(step.tool)) {
    issues.push({
      path: `${path}/tool`,
      code: 'client_tool_in_flow',
      message: `\`${step.tool}\` runs in the browser; a flow step can only call tools the platform runs`,
    });
  } else if (typeof step.tool === 'string' && !input.isRunnableTool(step.tool)) {
    issues.push({
      path: `${path}/tool`,
      code: 'unknown_tool',
      message: `step \`${String(step.id)}\` calls tool \`${step.tool}\`, which does not exist`,
      hint: didYouMean(step.tool, [...input.toolNames]) ?? `tools defined: ${input.toolNames.join(', ') || 'none'}`,
    });
  }
  if (isObject(step.save)) {
    for (const [slot, pointer] of Object.entries(step.save)) {
      if (typeof pointer === 'string' && pointer !== '' && !pointer.startsWith('/')) {
        issues.push({
          path: `${path}/save/${slot}`,
          code: 'invalid_pointer',
          message: `\`${pointer}\` is not a JSON pointer`,
          hint: 'start it with /, like /id or /data/0/name',
        });
      }
    }
  }
  return issues;
}

/** Prompts, messages and argument strings: valid templates reading only slots, `result` and context. */
function stepTemplateIssues(
  step: Json,
  path: string,
  readable: Set<string>,
  contextNames: readonly string[],
): FieldIssue[] {
  const sources: Array<[string, unknown]> = [
    ['prompt', step.prompt],
    ['message', step.message],
    ...stringLeaves(step.arguments, 'arguments'),
  ];
  return sources.flatMap(([field, source]) => {
    if (typeof source !== 'string') return [];
    const where = `${path}/${field}`;
    const compiled = compileTemplate(source, 'body');
    if (!compiled.ok) {
      return compiled.problems.map((p) => ({
        path: where,
        code: p.code,
        message: `${readablePath(where)}: ${p.message}`,
        ...(p.hint ? { hint: p.hint } : {}),
      }));
    }
    return compiled.template.refs.flatMap((ref): FieldIssue[] => {
      if (ref.kind === 'secret' || ref.kind === 'user') {
        return [
          {
            path: where,
            code: 'template_not_allowed',
            message: `${readablePath(where)} reads \`${ref.kind === 'secret' ? 'secrets' : 'user'}.${ref.name}\`: what a flow says and sends is kept in the transcript, so it may not hold secrets or end-user values`,
            hint: 'put secrets and end-user values in the tool itself',
          },
        ];
      }
      if (ref.kind === 'context' && !contextNames.includes(ref.name)) {
        return [
          {
            path: where,
            code: 'unknown_context_variable',
            message: `\`context.${ref.name}\` is not a context variable`,
            hint: didYouMean(ref.name, [...contextNames]) ?? `declare it under context`,
          },
        ];
      }
      if (ref.kind === 'argument' && !readable.has(ref.name)) {
        return [
          {
            path: where,
            code: 'unknown_slot',
            message: `${readablePath(where)} reads \`${ref.name}\`, which is neither a slot nor a value a tool step saves`,
            hint: didYouMean(ref.name, [...readable]) ?? `readable: ${[...readable].join(', ')}`,
          },
        ];
      }
      return [];
    });
  });
}

function stringLeaves(value: unknown, path: string): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, `${path}/${i}`));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, `${path}/${k}`));
  return [];
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
