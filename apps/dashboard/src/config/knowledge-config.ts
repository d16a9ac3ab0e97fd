import type { AgentConfigDocument } from '@agentry/contract';

/**
 * The agent config's `knowledge` block: which bases the agent answers from (by name), how
 * (`tool`: the agent searches when it needs to; `auto`: a search before every answer) and how many
 * sources a search gives (`top_k`). The editor drops the block when no base is chosen.
 */
export const KNOWLEDGE_MODES = ['tool', 'auto'] as const;
export type KnowledgeMode = (typeof KNOWLEDGE_MODES)[number];

export interface KnowledgeBlock {
  bases: string[];
  mode: KnowledgeMode;
  top_k: number;
}

export const DEFAULT_MODE: KnowledgeMode = 'tool';
export const DEFAULT_TOP_K = 5;
export const TOP_K_MIN = 1;
export const TOP_K_MAX = 20;

/** The block as the config holds it (read loosely: the draft may be half-written or hand-edited JSON). */
export function readKnowledge(config: AgentConfigDocument): Partial<KnowledgeBlock> | undefined {
  const block = (config as { knowledge?: unknown }).knowledge;
  if (!block || typeof block !== 'object' || Array.isArray(block)) return undefined;
  const raw = block as Record<string, unknown>;
  const bases = Array.isArray(raw.bases) ? raw.bases.filter((b): b is string => typeof b === 'string') : undefined;
  return {
    ...(bases ? { bases } : {}),
    ...(raw.mode === 'tool' || raw.mode === 'auto' ? { mode: raw.mode } : {}),
    ...(typeof raw.top_k === 'number' ? { top_k: raw.top_k } : {}),
  };
}

/**
 * The block after choosing or dropping one base: the other fields kept (or their defaults), and no
 * block at all once no base is left (an agent without knowledge has none).
 *
 * @example
 * toggleBase(undefined, 'Handbook', true); // { bases: ['Handbook'], mode: 'tool', top_k: 5 }
 * toggleBase({ bases: ['Handbook'], mode: 'auto', top_k: 3 }, 'Handbook', false); // undefined
 */
export function toggleBase(
  block: Partial<KnowledgeBlock> | undefined,
  name: string,
  chosen: boolean,
): KnowledgeBlock | undefined {
  const current = block?.bases ?? [];
  const bases = chosen ? (current.includes(name) ? current : [...current, name]) : current.filter((b) => b !== name);
  if (bases.length === 0) return undefined;
  return { bases, mode: block?.mode ?? DEFAULT_MODE, top_k: block?.top_k ?? DEFAULT_TOP_K };
}

/**
 * The block with `mode` or `top_k` changed (nothing when no base is chosen: those settle nothing alone).
 *
 * @example
 * withSetting({ bases: ['Handbook'] }, { mode: 'auto' }); // { bases: ['Handbook'], mode: 'auto', top_k: 5 }
 */
export function withSetting(
  block: Partial<KnowledgeBlock> | undefined,
  change: Partial<Pick<KnowledgeBlock, 'mode' | 'top_k'>>,
): KnowledgeBlock | undefined {
  if (!block?.bases?.length) return undefined;
  return {
    bases: block.bases,
    mode: change.mode ?? block.mode ?? DEFAULT_MODE,
    top_k: change.top_k ?? block.top_k ?? DEFAULT_TOP_K,
  };
}

/** One checkbox of the base picker. */
export interface BaseChoice {
  /** What the label says: the base's name (or the config's reference when no base has it). */
  name: string;
  /** How the config names it: its name, or its id when the config was written with the id. */
  ref: string;
  chosen: boolean;
  /** The config names a base the tenant does not have (deleted, renamed): shown so it can be unticked. */
  missing: boolean;
}

/**
 * The bases to offer as checkboxes: the tenant's (ticked when the config names them by name or id),
 * then the config's references no base answers to, each once.
 *
 * @example
 * baseChoices([{ id: 'b1', name: 'FAQ' }], ['b1', 'Old']);
 * // [{ name: 'FAQ', ref: 'b1', chosen: true, missing: false }, { name: 'Old', ref: 'Old', chosen: true, missing: true }]
 */
export function baseChoices(
  available: ReadonlyArray<{ id: string; name: string }>,
  chosen: readonly string[],
): BaseChoice[] {
  const answered = new Set<string>();
  const choices = available.map((base) => {
    const ref = chosen.find((c) => c === base.name || c === base.id);
    if (ref !== undefined) answered.add(ref);
    return { name: base.name, ref: ref ?? base.name, chosen: ref !== undefined, missing: false };
  });
  const unknown = [...new Set(chosen)].filter((ref) => !answered.has(ref));
  return [...choices, ...unknown.map((ref) => ({ name: ref, ref, chosen: true, missing: true }))];
}
