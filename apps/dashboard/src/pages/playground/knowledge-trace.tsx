import type { Citation } from '@agentry/contract/schemas';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** A hit of a `search_knowledge` result as the runner stores it (`sources[]` of its output). */
interface KnowledgeHitView {
  n: number;
  title: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  score: number;
}

/**
 * The hits of a `search_knowledge` result, read defensively (a trace shows what was stored, and a
 * failed search stores an error instead).
 *
 * @example
 * knowledgeHits({ results: '…', sources: [{ n: 1, title: 'Refunds', heading_path: [], page: 3, url: null, score: 0.03 }] });
 */
export function knowledgeHits(output: unknown): KnowledgeHitView[] | undefined {
  if (typeof output !== 'object' || output === null || !('sources' in output) || !Array.isArray(output.sources)) {
    return undefined;
  }
  return output.sources.flatMap((s: unknown) => {
    if (typeof s !== 'object' || s === null) return [];
    const r = s as Record<string, unknown>;
    if (typeof r.n !== 'number' || typeof r.title !== 'string') return [];
    return [
      {
        n: r.n,
        title: r.title,
        heading_path: Array.isArray(r.heading_path) ? r.heading_path.filter((h) => typeof h === 'string') : [],
        page: typeof r.page === 'number' ? r.page : null,
        url: typeof r.url === 'string' ? r.url : null,
        score: typeof r.score === 'number' ? r.score : 0,
      },
    ];
  });
}

/** A `search_knowledge` call: its query, then each hit with its number, title, heading, page and score. */
export function KnowledgeSearchView({ args, hits }: { args: unknown; hits: KnowledgeHitView[] }) {
  const { t } = useI18n();
  const query =
    typeof args === 'object' && args !== null && 'query' in args && typeof args.query === 'string' ? args.query : '';
  return (
    <div className="knowledge-search">
      <p>{t('trace.knowledgeQuery', { query })}</p>
      {hits.length === 0 ? (
        <p className="muted">{t('trace.knowledgeNone')}</p>
      ) : (
        <>
          <h5>{t('trace.knowledgeHits')}</h5>
          <ol className="knowledge-hits">
            {hits.map((hit) => (
              <li key={`${hit.n}-${hit.title}`}>
                <strong>[{hit.n}]</strong> {hit.title}
                {hit.heading_path.length > 0 ? <span className="muted"> — {hit.heading_path.join(' › ')}</span> : null}
                {hit.page !== null ? <span> · {t('trace.knowledgePage', { page: hit.page })}</span> : null}
                <span className="muted"> · {t('trace.knowledgeScore', { score: hit.score.toFixed(4) })}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

/** The sources an answer cites, by marker. */
export function CitationsView({ citations }: { citations: readonly Citation[] }) {
  const { t } = useI18n();
  if (citations.length === 0) return null;
  return (
    <div className="citations">
      <h5>{t('trace.citations')}</h5>
      <ol className="knowledge-hits">
        {citations.map((c) => (
          <li key={c.marker}>
            <strong>[{c.marker}]</strong> {c.title}
            {c.heading_path.length > 0 ? <span className="muted"> — {c.heading_path.join(' › ')}</span> : null}
            {c.page !== null ? <span> · {t('trace.knowledgePage', { page: c.page })}</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
