import { useI18n } from '../../i18n/i18n-context.tsx';

/** Where a piece sits in its document: the headings above it and its page. */
export function ChunkPlace({ headingPath, page }: { headingPath: string[]; page: number | null }) {
  const { t } = useI18n();
  if (headingPath.length === 0 && page === null) return null;
  return (
    <p className="help chunk-place">
      {headingPath.length > 0 ? <span className="heading-path">{headingPath.join(' › ')}</span> : null}
      {headingPath.length > 0 && page !== null ? ' · ' : null}
      {page !== null ? <span className="page">{t('knowledge.page', { page })}</span> : null}
    </p>
  );
}
