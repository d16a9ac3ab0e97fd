import {
  type ArgumentsValidator,
  argumentsValidator,
  type CompiledTemplate,
  compileTemplate,
  type FlowConfig,
  type FlowStepConfig,
} from '@agentry/config';
import { RE2JS } from 're2js';
import { flowToolName } from './flow-state.ts';

/** Phrases that leave a flow when the config names none (compared trimmed, case-insensitively). */
export const DEFAULT_EXIT_PHRASES = ['cancel', 'stop', 'quit', 'exit', '取消', '退出', '不要了'];

/** A flow ready to run: its steps by id, patterns compiled (RE2), validators and templates built. */
export interface CompiledFlow {
  config: FlowConfig;
  name: string;
  toolName: string;
  /** Step ids in the order written. */
  order: string[];
  steps: Map<string, FlowStepConfig>;
  triggers: RE2JS[];
  /** Slot name → its extraction pattern. */
  patterns: Map<string, RE2JS>;
  /** Slot name → validator of `{ value }` against the slot's schema. */
  slotValidators: Map<string, ArgumentsValidator>;
  /** Step id → one validator per branch condition. */
  conditions: Map<string, ArgumentsValidator[]>;
  exitPhrases: Set<string>;
  maxAttempts: number;
  allowExit: boolean;
  template(source: string): CompiledTemplate;
}

const compiled = new WeakMap<readonly FlowConfig[], CompiledFlow[]>();

/**
 * Compiles an agent's flows once per config object (the compiled agent is cached per version, so
 * its config is too). The config was checked at upload (`checkAgentConfig`): compiling cannot fail
 * for a stored version.
 *
 * @example
 * const flows = compileFlows(agent.config.flows ?? []);
 */
export function compileFlows(flows: readonly FlowConfig[]): CompiledFlow[] {
  let out = compiled.get(flows);
  if (!out) {
    out = flows.map(compileFlow);
    compiled.set(flows, out);
  }
  return out;
}

function compileFlow(config: FlowConfig): CompiledFlow {
  const slots = config.slots ?? {};
  const templates = new Map<string, CompiledTemplate>();
  return {
    config,
    name: config.name,
    toolName: flowToolName(config.name),
    order: config.steps.map((step) => step.id),
    steps: new Map(config.steps.map((step) => [step.id, step])),
    triggers: (config.triggers?.patterns ?? []).map((p) => RE2JS.compile(p)),
    patterns: new Map(
      Object.entries(slots).flatMap(([name, slot]) => (slot.pattern ? [[name, RE2JS.compile(slot.pattern)]] : [])),
    ),
    slotValidators: new Map(
      Object.entries(slots).map(([name, slot]) => [
        name,
        argumentsValidator({ type: 'object', properties: { value: slot.schema }, required: ['value'] }),
      ]),
    ),
    conditions: new Map(
      config.steps.flatMap((step) =>
        step.type === 'branch' && step.branches
          ? [[step.id, step.branches.map((b) => argumentsValidator(b.when as Record<string, unknown>))]]
          : [],
      ),
    ),
    exitPhrases: new Set((config.exit_phrases ?? DEFAULT_EXIT_PHRASES).map(normalise)),
    maxAttempts: config.max_attempts ?? 3,
    allowExit: config.allow_exit ?? true,
    template(source) {
      let template = templates.get(source);
      if (!template) {
        const result = compileTemplate(source, 'body');
        // Checked at upload; a template that no longer compiles is said as written.
        template = result.ok ? result.template : { source, refs: [], render: () => source, value: () => source };
        templates.set(source, template);
      }
      return template;
    },
  };
}

/** Text compared with exit phrases and yes/no words: trimmed, lower case, trailing punctuation dropped. */
export function normalise(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[.!?。！？,，]+$/u, '')
    .trim();
}
