/**
 * Collects streamed text in chunks and joins once, so building a message stays linear in the number
 * of deltas.
 *
 * @example
 * const acc = new TextAccumulator(); acc.push('He'); acc.push('llo'); acc.text(); // 'Hello'
 */
export class TextAccumulator {
  #chunks: string[] = [];
  #length = 0;
  #joined: string | undefined = '';

  push(delta: string): void {
    if (delta.length === 0) return;
    this.#chunks.push(delta);
    this.#length += delta.length;
    this.#joined = undefined;
  }

  get length(): number {
    return this.#length;
  }

  text(): string {
    if (this.#joined === undefined) {
      this.#joined = this.#chunks.join('');
      // Keep one chunk so later pushes do not re-join everything seen so far.
      this.#chunks = [this.#joined];
    }
    return this.#joined;
  }
}
