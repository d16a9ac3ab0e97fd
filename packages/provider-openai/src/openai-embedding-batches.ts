/** How many texts, and roughly how many tokens, one embeddings request may carry. */
export interface BatchLimits {
  maxInputs: number;
  maxTokens: number;
}

/**
 * A deliberately high token estimate (no tokenizer shipped): about 3 ASCII characters per token
 * and 2 tokens per other character (CJK often costs 1–2), so a batch under the bound is under the
 * provider's real one (OpenAI: 300,000 tokens per request).
 *
 * @example
 * estimateTokens('refund policy'); // 6
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other * 2 + 1;
}

/**
 * Splits texts into consecutive request batches, each within both limits (a single text over the
 * token bound travels alone: the provider says whether it takes it). Indexes map back to the input.
 *
 * @example
 * splitBatches(['a', 'b', 'c'], { maxInputs: 2, maxTokens: 1000 }); // [{ start: 0, texts: ['a','b'] }, { start: 2, texts: ['c'] }]
 */
export function splitBatches(texts: readonly string[], limits: BatchLimits): Array<{ start: number; texts: string[] }> {
  const batches: Array<{ start: number; texts: string[] }> = [];
  let current: { start: number; texts: string[] } | undefined;
  let tokens = 0;
  texts.forEach((text, index) => {
    const cost = estimateTokens(text);
    if (!current || current.texts.length >= limits.maxInputs || tokens + cost > limits.maxTokens) {
      current = { start: index, texts: [] };
      batches.push(current);
      tokens = 0;
    }
    current.texts.push(text);
    tokens += cost;
  });
  return batches;
}
