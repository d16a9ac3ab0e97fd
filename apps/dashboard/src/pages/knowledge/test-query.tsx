import type { KnowledgeSearchResult } from '@agentry/contract/schemas';
import { type FormEvent, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { ChunkPlace } from './chunk-place.tsx';

const SNIPPET_CHARS = 320;
const DEFAULT_TOP_K = 5;

/** The start of a chunk's text, cut at a word where it can be. */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.slice(0, SNIPPET_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > SNIPPET_CHARS * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** Ask the base a question the way an agent would and see what it finds, best first. */
export function TestQuery({ baseId }: { baseId: string }) {
  const { t } = useI18n();
  const [query, setQuery] = useState('');
  const [topK, setTopK] = useState(DEFAULT_TOP_K);
  const [result, setResult] = useState<KnowledgeSearchResult & { query: string }>();
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const asked = query.trim();
    void action.run(async () => {
      const found = await knowledgeApi.search(baseId, { query: asked, top_k: topK });
      setResult({ ...found, query: asked });
    });
  };
  return (
    <section className="card" aria-labelledby="test-query-title" id="test-query">
      <h2 id="test-query-title">{t('knowledge.search.title')}</h2>
      <p className="muted">{t('knowledge.search.intro')}</p>
      <form className="search-form" onSubmit={submit}>
        <LabelledField id="knowledge-query" label={t('knowledge.search.query')} className="grow">
          {(control) => (
            <input
              {...control}
              type="search"
              value={query}
              maxLength={2000}
              placeholder={t('knowledge.search.placeholder')}
              onChange={(e) => setQuery(e.target.value)}
            />
          )}
        </LabelledField>
        <LabelledField id="knowledge-top-k" label={t('knowledge.search.topK')} className="narrow">
          {(control) => (
            <input
              {...control}
              type="number"
              min={1}
              max={50}
              step={1}
              value={Number.isNaN(topK) ? '' : topK}
              onChange={(e) => setTopK(e.target.valueAsNumber)}
            />
          )}
        </LabelledField>
        <button
          type="submit"
          className="search-form-submit"
          id="knowledge-search"
          disabled={action.busy || !query.trim() || !(Number.isInteger(topK) && topK >= 1 && topK <= 50)}
        >
          {action.busy ? t('knowledge.search.searching') : t('knowledge.search.run')}
        </button>
      </form>
      <ErrorBanner error={action.error} />
      {result ? (
        <div id="search-results" aria-live="polite">
          {result.data.length === 0 ? (
            <p className="empty">{t('knowledge.search.none', { query: result.query })}</p>
          ) : (
            <ol className="hits">
              {result.data.map((hit) => (
                <li key={hit.id} className="hit" data-document={hit.title}>
                  <div className="hit-head">
                    <strong className="hit-title">
                      {hit.url ? (
                        <a href={hit.url} target="_blank" rel="noreferrer noopener">
                          {hit.title}
                        </a>
                      ) : (
                        hit.title
                      )}
                    </strong>
                    <span className="badge" title={t('knowledge.search.scoreHelp')}>
                      {t('knowledge.search.score', { score: hit.score.toFixed(3) })}
                    </span>
                  </div>
                  <ChunkPlace headingPath={hit.heading_path} page={hit.page} />
                  <p className="hit-snippet">{snippet(hit.text)}</p>
                </li>
              ))}
            </ol>
          )}
          <p className="help">
            {t(result.vector_search === 'pgvector' ? 'knowledge.search.pgvector' : 'knowledge.search.builtin')}
          </p>
        </div>
      ) : null}
    </section>
  );
}
