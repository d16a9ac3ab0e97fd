import type { RetrievalQuestion } from './retrieval-question.ts';

/** One retrieved passage, as the evaluation compares it (map a `KnowledgeHit`'s document id to its file name). */
export interface RetrievedPassage {
  /** The file name of the passage's document in the corpus. */
  document: string;
  text: string;
  headingPath?: readonly string[];
}

/** Ranked passages for a question, best first. */
export type RetrievalSearchFn = (question: string) => Promise<readonly RetrievedPassage[]>;

/** What `recallAtK` measured. */
export interface RecallReport {
  k: number;
  /** Questions with a relevant passage in their top k, over all questions (0 when there are none). */
  recall: number;
  found: number;
  total: number;
  /** Per question: the 1-based rank of the first relevant passage, or null when none in the top k. */
  ranks: Array<{ id: string; rank: number | null }>;
  /** Mean reciprocal rank within the top k (a miss counts 0). */
  mrr: number;
}

/** Whitespace removed and case folded: extraction may reflow text and CJK has no spaces to trust. */
function squash(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
}

/**
 * Whether a passage answers a question: it comes from the labelled document and either contains
 * the labelled phrase or sits under the labelled heading (the deepest entry of its heading path).
 *
 * @example
 * isRelevant(question, { document: 'shipping.md', text: '… free on orders of $75 or more …' }); // true
 */
export function isRelevant(question: RetrievalQuestion, passage: RetrievedPassage): boolean {
  if (passage.document !== question.document) return false;
  if (squash(passage.text).includes(squash(question.answer_contains))) return true;
  const deepest = passage.headingPath?.at(-1);
  return deepest !== undefined && squash(deepest) === squash(question.heading);
}

/**
 * Recall@k of a search over a labelled set: the share of questions with at least one relevant
 * passage (`isRelevant`) among the first `k` results, plus the rank of each (MRR). Questions run
 * one at a time, so the searched system sees the load of a single user.
 *
 * @example
 * const report = await recallAtK(questions, async (q) => toPassages(await knowledge.search({ …, query: q, topK: 5 })));
 * console.log(`recall@5 = ${report.recall.toFixed(2)}`);
 */
export async function recallAtK(
  questions: readonly RetrievalQuestion[],
  search: RetrievalSearchFn,
  k = 5,
): Promise<RecallReport> {
  const ranks: RecallReport['ranks'] = [];
  for (const question of questions) {
    const passages = (await search(question.question)).slice(0, k);
    const index = passages.findIndex((passage) => isRelevant(question, passage));
    ranks.push({ id: question.id, rank: index === -1 ? null : index + 1 });
  }
  const found = ranks.filter((r) => r.rank !== null).length;
  const total = questions.length;
  const reciprocal = ranks.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0);
  return { k, recall: total ? found / total : 0, found, total, ranks, mrr: total ? reciprocal / total : 0 };
}
