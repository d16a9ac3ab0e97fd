/**
 * One labelled question of a retrieval set (`bench/knowledge/questions.json`): which document and
 * section answer it, and a short phrase of that section that a relevant passage contains.
 */
export interface RetrievalQuestion {
  id: string;
  question: string;
  /** The answering document's file name in the set's corpus. */
  document: string;
  /** The heading of the section that answers it. */
  heading: string;
  /** A short phrase from that section. */
  answer_contains: string;
}

const FIELDS = ['id', 'question', 'document', 'heading', 'answer_contains'] as const;

/**
 * Checks a parsed `questions.json`: an array of questions with every field a non-empty string and
 * ids unique. Throws an Error naming the first problem.
 *
 * @example
 * const questions = parseRetrievalQuestions(JSON.parse(await readFile('bench/knowledge/questions.json', 'utf8')));
 */
export function parseRetrievalQuestions(value: unknown): RetrievalQuestion[] {
  if (!Array.isArray(value)) throw new Error('A retrieval set is a JSON array of questions');
  const ids = new Set<string>();
  return value.map((item: unknown, index) => {
    const record = (item ?? {}) as Record<string, unknown>;
    for (const field of FIELDS) {
      const text = record[field];
      if (typeof text !== 'string' || text.trim() === '') {
        throw new Error(`Question ${index}: '${field}' must be a non-empty string`);
      }
    }
    const question = record as unknown as RetrievalQuestion;
    if (ids.has(question.id)) throw new Error(`Question ${index}: the id '${question.id}' is used twice`);
    ids.add(question.id);
    return {
      id: question.id,
      question: question.question,
      document: question.document,
      heading: question.heading,
      answer_contains: question.answer_contains,
    };
  });
}
