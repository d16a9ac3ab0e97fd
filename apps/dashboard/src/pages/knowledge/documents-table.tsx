import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { useAction } from '../../components/use-action.ts';
import { formatBytes } from '../../config/knowledge-files.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { DocumentStatus } from './document-status.tsx';

interface DocumentsTableProps {
  baseId: string;
  documents: KnowledgeDocument[];
  canWrite: boolean;
  previewId: string | undefined;
  onPreview: (documentId: string | undefined) => void;
  onChanged: () => Promise<void>;
}

/** The base's documents: status (with progress and the reason of a failure), size, chunks; preview, resync, delete. */
export function DocumentsTable({ baseId, documents, canWrite, previewId, onPreview, onChanged }: DocumentsTableProps) {
  const { t, lang } = useI18n();
  const action = useAction();
  const act = (fn: () => Promise<unknown>) =>
    action.run(async () => {
      await fn();
      await onChanged();
    });
  return (
    <>
      <ErrorBanner error={action.error} />
      <ListTable
        id="documents-table"
        className="documents"
        headers={[
          t('knowledge.doc.title'),
          t('knowledge.doc.status'),
          t('knowledge.doc.pages'),
          t('knowledge.chunks'),
          t('knowledge.size'),
          t('knowledge.updated'),
        ]}
        actions
      >
        {documents.map((doc) => (
          <tr key={doc.id} data-document={doc.title} data-status={doc.status}>
            <td>
              <strong>{doc.title}</strong>
              <DocumentSource doc={doc} />
            </td>
            <td>
              <DocumentStatus doc={doc} />
            </td>
            <td>{doc.pages ?? '—'}</td>
            <td>{doc.chunk_count}</td>
            <td className="nowrap">{formatBytes(doc.bytes)}</td>
            <td>{formatDate(lang, doc.updated_at)}</td>
            <td>
              <div className="inline">
                <button
                  type="button"
                  className="secondary small"
                  aria-pressed={previewId === doc.id}
                  disabled={doc.status !== 'ready'}
                  data-action="preview"
                  onClick={() => onPreview(previewId === doc.id ? undefined : doc.id)}
                >
                  {t('knowledge.doc.preview')}
                </button>
                {canWrite && doc.source === 'url' ? (
                  <button
                    type="button"
                    className="secondary small"
                    data-action="resync"
                    disabled={action.busy || doc.status === 'queued' || doc.status === 'processing'}
                    title={t('knowledge.doc.resyncHelp')}
                    onClick={() => void act(() => knowledgeApi.resync(baseId, doc.id))}
                  >
                    {t('knowledge.doc.resync')}
                  </button>
                ) : null}
                {canWrite ? (
                  <ConfirmButton
                    label={t('common.delete')}
                    question={t('knowledge.doc.deleteQuestion', { title: doc.title })}
                    confirmLabel={t('common.delete')}
                    onConfirm={() =>
                      act(async () => {
                        if (previewId === doc.id) onPreview(undefined);
                        await knowledgeApi.removeDocument(baseId, doc.id);
                      })
                    }
                  />
                ) : null}
              </div>
            </td>
          </tr>
        ))}
      </ListTable>
    </>
  );
}

/** Where the document came from: its address (a link), its file name, or "pasted text". */
function DocumentSource({ doc }: { doc: KnowledgeDocument }) {
  const { t } = useI18n();
  const crawl = doc.crawl ? ` · ${t('knowledge.doc.crawl', { n: doc.crawl.max_pages })}` : '';
  if (doc.url)
    return (
      <p className="help source">
        <a href={doc.url} target="_blank" rel="noreferrer noopener">
          {doc.url}
        </a>
        {crawl}
      </p>
    );
  if (doc.filename && doc.filename !== doc.title) return <p className="help source">{doc.filename}</p>;
  if (doc.source === 'text') return <p className="help source">{t('knowledge.doc.pasted')}</p>;
  return null;
}
