import type { ToolCallPart, ToolChoice, ToolDefinition, ToolResultPart } from '@agentry/llm';
import type { PatternToken } from './opening-pattern.ts';

/** Where a tool-call block ends, found incrementally while text streams in. */
export interface BlockEnd {
  /** End of the block's payload (exclusive), relative to the block text. */
  bodyEnd: number;
  /** End of the whole block, closing fence or tag included. */
  end: number;
}

/** Scans one open block; keeps its own state between calls so streaming stays linear. */
export interface BlockEndFinder {
  /** `text` starts at the block opening and only grows between calls. */
  find(text: string, final: boolean): BlockEnd | undefined;
}

/** An opening a profile recognises, and how its block ends. */
export interface BlockKind {
  tokens: PatternToken[];
  /** Where the payload starts, relative to the block opening. */
  bodyStart(text: string, openingEnd: number): number;
  endFinder(bodyStart: number): BlockEndFinder;
}

/**
 * How tools are described to, called by and answered to a model without native tool calling
 * (seed 004 §4: JSON_Strict and XML_Tag).
 */
export interface ProtocolProfile {
  name: 'json' | 'xml';
  /** Characters where a tool-call block may start. */
  triggers: string;
  kinds: BlockKind[];
  /** The system prompt section: protocol, tool list, call format. */
  instructions(tools: ToolDefinition[], choice: ToolChoice, parallel: boolean): string;
  /** Calls of one assistant message in the call template. */
  renderCalls(calls: ToolCallPart[]): string;
  /** Results of one tool message in the result template. */
  renderResults(results: ToolResultPart[]): string;
  /** Tool calls in one block payload; unreadable payloads become calls with `rawArguments`. */
  parseBlock(body: string, newId: () => string): ToolCallPart[];
}
