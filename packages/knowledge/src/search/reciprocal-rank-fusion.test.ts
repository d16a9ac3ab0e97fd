import { describe, expect, it } from 'vitest';
import { fuseRankings, RRF_K } from './reciprocal-rank-fusion.ts';

describe('fuseRankings', () => {
  it('puts an item ranked in both lists above items that top only one', () => {
    const fused = fuseRankings([
      ['vector-only', 'both'],
      ['text-only', 'both'],
    ]);
    expect(fused[0]).toEqual({ id: 'both', score: 2 / (RRF_K + 2) });
    expect(fused.map((item) => item.id)).toEqual(['both', 'vector-only', 'text-only']);
  });

  it('keeps one list as it is, and is empty for no lists', () => {
    expect(fuseRankings([['a', 'b', 'c']]).map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(fuseRankings([])).toEqual([]);
  });
});
