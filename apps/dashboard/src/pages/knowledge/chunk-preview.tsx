import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { useEffect, useRef } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { ChunkPlace } from './chunk-place.tsx';

/** The pieces a document was cut into, as searches find them: heading path, page, text. */
export function ChunkPreview({
  baseId,
  document,
  onClose,
}: {
  baseId: string;
  document: KnowledgeDocument;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const chunks = useLoad(() => knowledgeApi.chunks(baseId, document.id), { key: document.id });
  // Opened from a row far above: it comes into view, and keyboard users land on it.
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another document previewed is opened again
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [document.id]);
  return (
    <section className="card" id="chunk-preview" aria-labelledby="chunk-preview-title">
      <header className="card-header">
        <h2 id="chunk-preview-title" ref={heading} tabIndex={-1}>
          {t('knowledge.chunksOf', { title: document.title })}
        </h2>
        <button type="button" className="icon-button" aria-label={t('common.close')} onClick={onClose}>
          ×
        </button>
      </header>
      <Loaded data={chunks.data} error={chunks.error} empty={t('knowledge.noChunks')}>
        {(rows) => (
          <>
            {rows.length < document.chunk_count ? (
              <p className="muted">{t('knowledge.chunksFirst', { shown: rows.length, total: document.chunk_count })}</p>
            ) : null}
            <ol className="chunk-list">
              {rows.map((chunk) => (
                <li key={chunk.id} className="chunk">
                  <ChunkPlace headingPath={chunk.heading_path} page={chunk.page} />
                  <p className="chunk-text">{chunk.text}</p>
                </li>
              ))}
            </ol>
          </>
        )}
      </Loaded>
    </section>
  );
}
