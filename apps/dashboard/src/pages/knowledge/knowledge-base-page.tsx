import type { KnowledgeBase } from '@agentry/contract/schemas';
import { useEffect, useRef, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { useLoad } from '../../components/use-load.ts';
import { usePollWhile } from '../../components/use-poll-while.ts';
import { formatBytes } from '../../config/knowledge-files.ts';
import { hasPending } from '../../config/knowledge-progress.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { AddDocuments } from './add-documents.tsx';
import { BaseDetailsForm } from './base-details-form.tsx';
import { ChunkPreview } from './chunk-preview.tsx';
import { DocumentsTable } from './documents-table.tsx';
import { TestQuery } from './test-query.tsx';

/** How often the documents are refreshed while one is queued or processing (never when none is). */
const REFRESH_MS = 1000;

/** One knowledge base: add documents (files, web pages, text), watch them being processed, preview, try a search. */
export default function KnowledgeBasePage({ id }: { id: string }) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const base = useLoad(() => knowledgeApi.get(id), { key: id });
  const documents = useLoad(() => knowledgeApi.documents(id), { key: id });
  const pending = hasPending(documents.data ?? []);
  // The base's counts change as documents finish: it is read again when the last one settles.
  const wasPending = useRef(pending);
  const reloadBase = base.reload;
  useEffect(() => {
    if (wasPending.current && !pending) void reloadBase();
    wasPending.current = pending;
  }, [pending, reloadBase]);
  usePollWhile(pending, documents.reload, REFRESH_MS);
  const [previewId, setPreviewId] = useState<string>();
  const previewed = documents.data?.find((d) => d.id === previewId);
  const refresh = async () => {
    await Promise.all([documents.reload(), base.reload()]);
  };
  return (
    <div className="stack knowledge">
      <p>
        <a href={routeHref({ name: 'knowledge' })}>← {t('knowledge.title')}</a>
      </p>
      <Loaded data={base.data} error={base.error}>
        {(kb) => <BaseHeader base={kb} canWrite={canWrite} onSaved={(next) => base.setData(next)} />}
      </Loaded>
      {canWrite && base.data ? <AddDocuments baseId={id} documents={documents.data ?? []} onAdded={refresh} /> : null}
      <section className="card" aria-labelledby="documents-title">
        <h2 id="documents-title">{t('knowledge.documentsTitle')}</h2>
        <Loaded data={documents.data} error={documents.error} empty={t('knowledge.noDocuments')}>
          {(rows) => (
            <DocumentsTable
              baseId={id}
              documents={rows}
              canWrite={canWrite}
              previewId={previewId}
              onPreview={setPreviewId}
              onChanged={refresh}
            />
          )}
        </Loaded>
      </section>
      {previewed ? <ChunkPreview baseId={id} document={previewed} onClose={() => setPreviewId(undefined)} /> : null}
      {base.data ? <TestQuery baseId={id} /> : null}
    </div>
  );
}

/** Name, description and totals; writers rename, describe and delete. */
function BaseHeader({
  base,
  canWrite,
  onSaved,
}: {
  base: KnowledgeBase;
  canWrite: boolean;
  onSaved: (base: KnowledgeBase) => void;
}) {
  const { t } = useI18n();
  const [editing, setEditing] = useState(false);
  const remove = useAction();
  if (editing)
    return (
      <BaseDetailsForm
        base={base}
        onCancel={() => setEditing(false)}
        onSaved={(next) => {
          onSaved(next);
          setEditing(false);
        }}
      />
    );
  return (
    <header className="page-header">
      <div>
        <h1 id="knowledge-base-name">{base.name}</h1>
        {base.description ? <p id="knowledge-base-description">{base.description}</p> : null}
        <p className="muted" id="knowledge-base-totals">
          {t('knowledge.totals', {
            documents: base.document_count,
            chunks: base.chunk_count,
            size: formatBytes(base.bytes),
          })}{' '}
          ·{' '}
          <span title={t('knowledge.embeddingHelp')}>{t('knowledge.embedding', { model: base.embedding_model })}</span>
        </p>
      </div>
      {canWrite ? (
        <div className="inline">
          <button type="button" className="secondary small" id="edit-knowledge-base" onClick={() => setEditing(true)}>
            {t('knowledge.edit')}
          </button>
          <ConfirmButton
            id="delete-knowledge-base"
            label={t('knowledge.delete')}
            question={t('knowledge.deleteQuestion', { name: base.name, n: base.document_count })}
            confirmLabel={t('common.delete')}
            onConfirm={() =>
              remove.run(async () => {
                await knowledgeApi.remove(base.id);
                navigate({ name: 'knowledge' });
              })
            }
          />
        </div>
      ) : null}
      <ErrorBanner error={remove.error} />
    </header>
  );
}
