import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate closest to a misspelt word, if it is close enough to be a likely typo.
 *
 * @example
 * suggest('endpont', ['endpoint', 'name']); // 'endpoint'
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const lower = word.toLowerCase();
  const caseInsensitive = candidates.find((c) => c.toLowerCase() === lower);
  if (caseInsensitive) return caseInsensitive;
  const best = closest(word, [...candidates]);
  // Allow a swapped pair (distance 2) in words of 4+ letters and about one typo per three letters
  // beyond; further away a "did you mean" is noise.
  const allowed = best.length <= 3 ? 1 : Math.max(2, Math.floor(best.length / 3));
  return distance(word, best) <= allowed ? best : undefined;
}

/** "did you mean `x`?" or undefined. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const best = suggest(word, candidates);
  return best === undefined ? undefined : `did you mean \`${best}\`?`;
}
