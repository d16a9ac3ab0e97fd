import type { BlockEnd, BlockEndFinder } from './protocol-profile.ts';

/**
 * Finds the end of the JSON object starting at `bodyStart`, string- and escape-aware, resuming
 * where the last call stopped. With `fence`, a closing ``` right after the object belongs to the
 * block.
 *
 * @example
 * new JsonObjectEnd(0, false).find('{"a":"}"} tail', false); // { bodyEnd: 9, end: 9 }
 */
export class JsonObjectEnd implements BlockEndFinder {
  #pos: number;
  #depth = 0;
  #inString = false;
  #escape = false;
  #objectEnd: number | undefined;
  #fence: boolean;

  constructor(bodyStart: number, fence: boolean) {
    this.#pos = bodyStart;
    this.#fence = fence;
  }

  find(text: string, final: boolean): BlockEnd | undefined {
    this.#objectEnd ??= this.#scanObject(text);
    if (this.#objectEnd === undefined) return undefined;
    const bodyEnd = this.#objectEnd;
    if (!this.#fence) return { bodyEnd, end: bodyEnd };
    let p = bodyEnd;
    while (p < text.length && /\s/.test(text[p]!)) p++;
    const rest = text.slice(p, p + 3);
    if (rest === '```') return { bodyEnd, end: p + 3 };
    if (!final && '```'.startsWith(rest)) return undefined;
    return { bodyEnd, end: bodyEnd };
  }

  #scanObject(text: string): number | undefined {
    for (; this.#pos < text.length; this.#pos++) {
      const c = text[this.#pos];
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === '\\') this.#escape = true;
        else if (c === '"') this.#inString = false;
      } else if (c === '"') this.#inString = true;
      else if (c === '{') this.#depth++;
      else if (c === '}' && --this.#depth === 0) return ++this.#pos;
    }
    return undefined;
  }
}
