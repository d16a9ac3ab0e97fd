/** The constant of reciprocal rank fusion: 60, as in Cormack et al. (2009). */
export const RRF_K = 60;

/**
 * Fuses rankings by reciprocal rank fusion: an item's score is the sum over the rankings it
 * appears in of 1 / (k + rank), rank 1-based. An item high in both lists beats one that tops only
 * one. Ties keep the order of first appearance (the first ranking first).
 *
 * @example
 * fuseRankings([['a', 'b'], ['b', 'c']]); // [{ id: 'b', score: … }, { id: 'a', … }, { id: 'c', … }]
 */
export function fuseRankings(rankings: readonly (readonly string[])[], k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
