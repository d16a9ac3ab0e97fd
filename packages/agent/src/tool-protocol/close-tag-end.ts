import type { BlockEnd, BlockEndFinder } from './protocol-profile.ts';

/**
 * Finds a closing tag, searching only text it has not searched yet.
 *
 * @example
 * new CloseTagEnd('</tool_code>', 11).find('<tool_code>{}</tool_code>', false); // { bodyEnd: 13, end: 25 }
 */
export class CloseTagEnd implements BlockEndFinder {
  #tag: string;
  #from: number;

  constructor(tag: string, bodyStart: number) {
    this.#tag = tag;
    this.#from = bodyStart;
  }

  find(text: string, _final: boolean): BlockEnd | undefined {
    const at = text.indexOf(this.#tag, this.#from);
    if (at >= 0) return { bodyEnd: at, end: at + this.#tag.length };
    // The tag may be split across deltas: search its possible start again next time.
    this.#from = Math.max(this.#from, text.length - this.#tag.length + 1);
    return undefined;
  }
}
