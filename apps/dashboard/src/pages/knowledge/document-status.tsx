import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The document's status in words: waiting, processing with its bar, ready, or failed with the reason. */
export function DocumentStatus({ doc }: { doc: KnowledgeDocument }) {
  const { t } = useI18n();
  switch (doc.status) {
    case 'queued':
      return <span className="badge">{t('knowledge.status.queued')}</span>;
    case 'processing': {
      const percent = Math.round(Math.min(1, Math.max(0, doc.progress)) * 100);
      return (
        <div className="doc-progress">
          <span className="badge">{t('knowledge.status.processing', { percent })}</span>
          <progress
            className="progress"
            max={1}
            value={doc.progress}
            aria-label={t('knowledge.upload.progressOf', { name: doc.title })}
          />
        </div>
      );
    }
    case 'ready':
      return <span className="badge badge-ok">{t('knowledge.status.ready')}</span>;
    case 'failed':
      return (
        <div>
          <span className="badge badge-error">{t('knowledge.status.failed')}</span>
          <p className="issues doc-error">{doc.error?.message ?? t('knowledge.status.failedUnknown')}</p>
        </div>
      );
  }
}
