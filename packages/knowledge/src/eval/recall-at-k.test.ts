import { describe, expect, it } from 'vitest';
import { isRelevant, type RetrievedPassage, recallAtK } from './recall-at-k.ts';
import { parseRetrievalQuestions, type RetrievalQuestion } from './retrieval-question.ts';

const q = (id: string, answer: string, document = 'shipping.md', heading = 'Costs'): RetrievalQuestion => ({
  id,
  question: `question ${id}`,
  document,
  heading,
  answer_contains: answer,
});

describe('isRelevant', () => {
  it('needs the labelled document and the phrase (whitespace and case aside) or the heading', () => {
    const question = q('a', 'Free on orders of $75');
    expect(isRelevant(question, { document: 'shipping.md', text: 'It is free on\n orders  of $75 or more.' })).toBe(
      true,
    );
    expect(isRelevant(question, { document: 'returns.md', text: 'free on orders of $75' })).toBe(false);
    expect(isRelevant(question, { document: 'shipping.md', text: 'Overnight costs $29.95' })).toBe(false);
    expect(isRelevant(question, { document: 'shipping.md', text: '…', headingPath: ['Shipping', 'Costs'] })).toBe(true);
    expect(isRelevant(question, { document: 'shipping.md', text: '…', headingPath: ['Costs', 'Other'] })).toBe(false);
    expect(isRelevant(q('z', '满 499 元免运费'), { document: 'shipping.md', text: '实付金额满499元免运费；' })).toBe(
      true,
    );
  });
});

describe('recallAtK', () => {
  const questions = [q('a', 'alpha'), q('b', 'beta'), q('c', 'gamma'), q('d', 'delta')];
  const passage = (text: string): RetrievedPassage => ({ document: 'shipping.md', text });
  const results: Record<string, RetrievedPassage[]> = {
    'question a': [passage('alpha')],
    'question b': [passage('x'), passage('y'), passage('beta')],
    'question c': [1, 2, 3, 4, 5].map(String).map(passage).concat(passage('gamma')),
    'question d': [],
  };

  it('counts questions with a relevant passage in the top k and their ranks', async () => {
    const report = await recallAtK(questions, async (text) => results[text]!, 5);
    expect(report).toMatchObject({ k: 5, found: 2, total: 4, recall: 0.5 });
    expect(report.ranks).toEqual([
      { id: 'a', rank: 1 },
      { id: 'b', rank: 3 },
      { id: 'c', rank: null },
      { id: 'd', rank: null },
    ]);
    expect(report.mrr).toBeCloseTo((1 + 1 / 3) / 4);
    expect((await recallAtK(questions, async (text) => results[text]!, 6)).found).toBe(3);
    expect(await recallAtK([], async () => [])).toMatchObject({ recall: 0, mrr: 0, total: 0 });
  });
});

describe('parseRetrievalQuestions', () => {
  it('accepts well-formed questions and names the first problem otherwise', () => {
    expect(parseRetrievalQuestions([q('a', 'x')])).toEqual([q('a', 'x')]);
    expect(() => parseRetrievalQuestions({})).toThrow(/array/);
    expect(() => parseRetrievalQuestions([{ ...q('a', 'x'), heading: '' }])).toThrow(/Question 0: 'heading'/);
    expect(() => parseRetrievalQuestions([q('a', 'x'), q('a', 'y')])).toThrow(/used twice/);
  });
});
