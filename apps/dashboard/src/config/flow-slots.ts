import type { FlowSlotConfig } from '@agentry/contract';

/** The slot types a non-developer picks from; each builds a JSON Schema. */
export const SLOT_KINDS = ['text', 'number', 'integer', 'boolean', 'date', 'email', 'choice'] as const;
export type SlotKind = (typeof SLOT_KINDS)[number];

/** How an answer is read: a standard pattern for the kind, the model, or the author's own pattern. */
export type SlotReading = 'auto' | 'ai' | 'custom';

type Schema = Record<string, unknown>;

/**
 * Patterns that read a kind's value from an answer with no model call (RE2, first capture group).
 * A yes/no slot has none: the engine reads yes/no words itself only through a pattern, so it gets
 * one that takes the whole answer.
 */
const AUTO_PATTERNS: Record<SlotKind, string> = {
  text: '(?s)(.+)',
  number: '(-?\\d+(?:\\.\\d+)?)',
  integer: '(-?\\d+)',
  boolean: '(?s)(.+)',
  date: '(\\d{4}-\\d{2}-\\d{2})',
  email: '([^\\s@]+@[^\\s@]+\\.[^\\s@]+)',
  choice: '(?s)(.+)',
};

/**
 * The JSON Schema of a slot kind (`choices` for `choice`).
 *
 * @example
 * slotSchema('date'); // { type: 'string', format: 'date' }
 */
export function slotSchema(kind: SlotKind, choices: string[] = []): Schema {
  switch (kind) {
    case 'date':
      return { type: 'string', format: 'date' };
    case 'email':
      return { type: 'string', format: 'email' };
    case 'choice':
      return { type: 'string', enum: choices };
    case 'text':
      return { type: 'string', minLength: 1 };
    default:
      return { type: kind };
  }
}

/** The kind a slot's schema was built as; `text` for a string schema the builder did not write. */
export function slotKind(schema: unknown): SlotKind {
  const s = (schema ?? {}) as Schema;
  if (Array.isArray(s.enum)) return 'choice';
  if (s.type === 'string' && s.format === 'date') return 'date';
  if (s.type === 'string' && s.format === 'email') return 'email';
  if (s.type === 'number' || s.type === 'integer' || s.type === 'boolean') return s.type;
  return 'text';
}

/** The choices of a `choice` slot. */
export function slotChoices(schema: unknown): string[] {
  const values = ((schema ?? {}) as Schema).enum;
  return Array.isArray(values) ? values.map(String) : [];
}

/** The standard extraction pattern of a kind. */
export function autoPattern(kind: SlotKind): string {
  return AUTO_PATTERNS[kind];
}

/** How a slot is read, from its pattern. */
export function slotReading(slot: FlowSlotConfig): SlotReading {
  if (!slot.pattern) return 'ai';
  return slot.pattern === AUTO_PATTERNS[slotKind(slot.schema)] ? 'auto' : 'custom';
}

/**
 * The slot with a new kind: its schema rebuilt, and its pattern following the kind when it was the
 * standard one (an author's own pattern is kept).
 */
export function withSlotKind(slot: FlowSlotConfig, kind: SlotKind): FlowSlotConfig {
  const reading = slotReading(slot);
  const next: FlowSlotConfig = { ...slot, schema: slotSchema(kind, slotChoices(slot.schema)) };
  if (reading === 'auto') next.pattern = autoPattern(kind);
  return next;
}

/** A new slot: text, read without a model. */
export function blankSlot(): FlowSlotConfig {
  return { schema: slotSchema('text'), pattern: autoPattern('text') };
}
