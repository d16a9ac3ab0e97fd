import { eng, zho } from 'stopword';

const WORD = /[\p{L}\p{N}]+/gu;
const UNSEGMENTED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Words (plurals folded too), and for scripts written without spaces (Chinese, Japanese, Thai) characters and bigrams. */
export function lexicalFeatures(text: string): string[] {
  const features: string[] = [];
  for (const [word] of text.toLowerCase().normalize('NFKC').matchAll(WORD)) {
    if (!UNSEGMENTED.test(word)) {
      features.push(word);
      // A crude plural fold ("refunds" also counts as "refund"): lexical matching's commonest miss.
      if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) features.push(word.slice(0, -1));
      continue;
    }
    const chars = [...word];
    for (let i = 0; i < chars.length; i++) {
      features.push(chars[i]!);
      if (i + 1 < chars.length) features.push(chars[i]! + chars[i + 1]!);
    }
  }
  return features;
}

/**
 * Words nearly every passage has (English and Chinese lists of the `stopword` package, and the
 * pieces English contractions split into): in an OR query they match everything, and `ts_rank_cd`
 * has no inverse document frequency to weigh them down, so "How do I reset my password?" ranked
 * passages full of "do", "I" and "my" above the one about passwords.
 */
const STOPWORDS = new Set<string>([
  ...eng,
  ...zho,
  ...['s', 't', 'd', 'll', 're', 've', 'm', 'don', 'doesn', 'didn', 'isn', 'aren', 'wasn', 'weren', 'won'],
]);

/**
 * A search query's lexical features: those passages are indexed with (`lexicalFeatures`), less
 * stopwords; all of them when nothing else is left (a query of only common words still finds
 * something). Chinese bigrams stay whole: only single-character features are dropped. The
 * full-text query and the built-in embeddings' query vector are made of them.
 *
 * @example
 * queryFeatures('How do I reset my password?'); // ['reset', 'password']
 */
export function queryFeatures(query: string): string[] {
  const all = lexicalFeatures(query);
  const kept = all.filter((feature) => !STOPWORDS.has(feature));
  return kept.length > 0 ? kept : all;
}
