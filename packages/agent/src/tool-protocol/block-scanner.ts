import { matchOpening } from './opening-pattern.ts';
import type { BlockEndFinder, BlockKind, ProtocolProfile } from './protocol-profile.ts';

interface OpenBlock {
  kind: BlockKind;
  bodyStart: number;
  finder: BlockEndFinder;
}

/**
 * Splits streamed model text into visible text and tool-call blocks. Text is released only once it
 * cannot be the start of a block, so call syntax never reaches the user as text deltas. Decided text
 * is dropped from the buffer, which keeps the work linear in the text length.
 *
 * @example
 * const scanner = new BlockScanner(jsonProfile);
 * scanner.push('Sure. {"tool_c'); // 'Sure. '
 * scanner.push('alls": []}');      // ''
 * scanner.end(); scanner.blocks;   // ['{"tool_calls": []}']
 */
export class BlockScanner {
  readonly blocks: string[] = [];
  #profile: ProtocolProfile;
  #buffer = '';
  #searchFrom = 0;
  #block: OpenBlock | undefined;
  #visible: string[] = [];

  constructor(profile: ProtocolProfile) {
    this.#profile = profile;
  }

  /** Adds streamed text; returns the text that is now safe to show. */
  push(delta: string): string {
    this.#buffer += delta;
    return this.#scan(false);
  }

  /** The stream ended: decides everything left; returns the last text to show. */
  end(): string {
    return this.#scan(true);
  }

  /** All text shown so far, blocks removed. */
  visibleText(): string {
    return this.#visible.join('');
  }

  #scan(final: boolean): string {
    let out = '';
    while (true) {
      if (this.#block) {
        if (!this.#closeBlock(this.#block, final)) break;
        continue;
      }
      const found = this.#nextOpening(final);
      if (found === undefined) {
        out += this.#release(this.#buffer.length);
        break;
      }
      out += this.#release(found.at);
      if (!found.kind) break;
      this.#block = { kind: found.kind, bodyStart: found.bodyStart, finder: found.kind.endFinder(found.bodyStart) };
    }
    if (out) this.#visible.push(out);
    return out;
  }

  /** Next block opening (or undecidable start) at or after `#searchFrom`, or undefined when there is none. */
  #nextOpening(final: boolean): { at: number; kind?: BlockKind; bodyStart: number } | undefined {
    const text = this.#buffer;
    for (let i = this.#searchFrom; i < text.length; i++) {
      if (!this.#profile.triggers.includes(text[i]!)) continue;
      let partial = false;
      for (const kind of this.#profile.kinds) {
        const match = matchOpening(text, i, kind.tokens);
        if (match.status === 'open') return { at: i, kind, bodyStart: kind.bodyStart(text.slice(i), match.end - i) };
        partial ||= match.status === 'partial';
      }
      if (partial && !final) return { at: i, bodyStart: 0 };
    }
    return undefined;
  }

  /** Drops the first `count` characters of the buffer and returns them as visible text. */
  #release(count: number): string {
    const text = this.#buffer.slice(0, count);
    this.#buffer = this.#buffer.slice(count);
    this.#searchFrom = 0;
    return text;
  }

  /** True when the block was closed (or the stream ended inside it). */
  #closeBlock(block: OpenBlock, final: boolean): boolean {
    const end = block.finder.find(this.#buffer, final);
    if (end) {
      this.blocks.push(this.#buffer.slice(block.bodyStart, end.bodyEnd));
      this.#buffer = this.#buffer.slice(end.end);
    } else if (final) {
      // The model stopped inside a call: keep what it wrote, the parser reports it as broken.
      this.blocks.push(this.#buffer.slice(block.bodyStart));
      this.#buffer = '';
    } else {
      return false;
    }
    this.#block = undefined;
    this.#searchFrom = 0;
    return true;
  }
}
