import { ProblemError } from '@agentry/contract';
import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { uploadedShare } from '../../api/upload.ts';
import { checkFile, formatBytes, MAX_UPLOAD_BYTES, UPLOAD_ACCEPT } from '../../config/knowledge-files.ts';
import { rowPending, type UploadRow, type UploadView, uploadView } from '../../config/knowledge-progress.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

type RowBase = Pick<UploadRow, 'key' | 'name' | 'size'>;

/**
 * Files dropped or picked: each is checked here (type, size), then uploaded one at a time with a
 * progress bar that follows its bytes and then the document's processing, as the refreshed list tells.
 */
export function UploadZone({
  baseId,
  documents,
  onUploaded,
}: {
  baseId: string;
  documents: KnowledgeDocument[];
  onUploaded: () => Promise<void>;
}) {
  const { t } = useI18n();
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [dragging, setDragging] = useState(false);
  // One upload at a time: the bars move one after another and the server takes one file per request.
  const queue = useRef<Promise<void>>(Promise.resolve());
  const nextKey = useRef(0);
  const controller = useRef(new AbortController());
  useEffect(() => {
    const current = new AbortController();
    controller.current = current;
    return () => current.abort();
  }, []);

  const patch = (next: UploadRow) => setRows((all) => all.map((row) => (row.key === next.key ? next : row)));
  const send = async (file: File, row: RowBase) => {
    const signal = controller.current.signal;
    if (signal.aborted) return;
    patch({ ...row, phase: 'uploading', sent: 0 });
    try {
      const document = await knowledgeApi.upload(baseId, file, {
        signal,
        onProgress: (progress) => patch({ ...row, phase: 'uploading', sent: uploadedShare(progress) }),
      });
      patch({ ...row, phase: 'sent', documentId: document.id });
      await onUploaded();
    } catch (error) {
      if (!signal.aborted) patch({ ...row, phase: 'error', error });
    }
  };
  const add = (files: Iterable<File>) => {
    const added: UploadRow[] = [];
    for (const file of files) {
      const row: RowBase = { key: `upload-${nextKey.current++}`, name: file.name, size: file.size };
      const check = checkFile(file);
      if (!check.ok) {
        added.push({ ...row, phase: 'rejected', check });
        continue;
      }
      added.push({ ...row, phase: 'waiting' });
      queue.current = queue.current.then(() => send(file, row));
    }
    setRows((all) => [...all, ...added]);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };

  const views = rows.map((row) => ({
    row,
    view: uploadView(row, row.phase === 'sent' ? documents.find((d) => d.id === row.documentId) : undefined),
  }));
  const finished = views.filter(({ view }) => !rowPending(view)).length;
  return (
    <div className="stack-tight">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for mouse users; the file input inside serves the keyboard */}
      <div
        className={`dropzone${dragging ? ' dropzone-active' : ''}`}
        id="knowledge-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>{t('knowledge.upload.drop')}</p>
        <label className="button secondary">
          {t('knowledge.upload.pick')}
          <input
            type="file"
            multiple
            accept={UPLOAD_ACCEPT}
            className="sr-only"
            id="knowledge-file"
            onChange={(e) => {
              add(Array.from(e.target.files ?? []));
              // The same file may be chosen again (after fixing it).
              e.target.value = '';
            }}
          />
        </label>
        <p className="help">{t('knowledge.upload.formats', { max: formatBytes(MAX_UPLOAD_BYTES) })}</p>
      </div>
      {rows.length > 0 ? (
        <>
          <ul className="upload-list" id="upload-list" aria-label={t('knowledge.upload.listLabel')}>
            {views.map(({ row, view }) => (
              <UploadItem key={row.key} row={row} view={view} />
            ))}
          </ul>
          {finished > 0 ? (
            <button
              type="button"
              className="secondary small align-start"
              id="upload-clear"
              onClick={() =>
                setRows((all) => all.filter((row) => rowPending(uploadView(row, documentOf(row, documents)))))
              }
            >
              {t('knowledge.upload.clear')}
            </button>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

function documentOf(row: UploadRow, documents: KnowledgeDocument[]): KnowledgeDocument | undefined {
  return row.phase === 'sent' ? documents.find((d) => d.id === row.documentId) : undefined;
}

/** One file: name and size, the bar, and what is happening in words. */
function UploadItem({ row, view }: { row: UploadRow; view: UploadView }) {
  const { t } = useI18n();
  const bar = view.stage !== 'rejected' && view.stage !== 'error' && view.stage !== 'failed';
  return (
    <li className={`upload-item upload-${view.stage}`} data-file={row.name} data-stage={view.stage}>
      <div className="upload-head">
        <strong>{row.name}</strong>
        <span className="muted">{formatBytes(row.size)}</span>
      </div>
      {bar ? (
        <progress
          className={`progress${view.stage === 'ready' ? ' progress-done' : ''}`}
          max={1}
          value={view.overall}
          aria-label={t('knowledge.upload.progressOf', { name: row.name })}
        />
      ) : null}
      <p
        className={`upload-status${view.stage === 'failed' || view.stage === 'error' || view.stage === 'rejected' ? ' issues' : ''}`}
      >
        {uploadLabel(t, row, view)}
      </p>
    </li>
  );
}

type T = ReturnType<typeof useI18n>['t'];
const percent = (share: number) => Math.round(share * 100);

function uploadLabel(t: T, row: UploadRow, view: UploadView): string {
  switch (view.stage) {
    case 'rejected': {
      if (row.phase !== 'rejected') return '';
      const { check } = row;
      if (check.problem === 'type') return t('knowledge.upload.badType');
      if (check.problem === 'empty') return t('knowledge.upload.empty');
      return t('knowledge.upload.tooLarge', { size: formatBytes(row.size), max: formatBytes(check.maxBytes) });
    }
    case 'error': {
      const error = row.phase === 'error' ? row.error : undefined;
      const message = error instanceof Error ? error.message : String(error);
      return error instanceof ProblemError ? `${t('knowledge.upload.refused')} ${message}` : message;
    }
    case 'waiting':
      return t('knowledge.upload.waiting');
    case 'uploading':
      return t('knowledge.upload.uploading', { percent: percent(view.stageShare) });
    case 'queued':
      return t('knowledge.status.queuedLong');
    case 'processing':
      return t('knowledge.status.processingLong', { percent: percent(view.stageShare) });
    case 'ready':
      return t('knowledge.status.readyLong', { chunks: view.document?.chunk_count ?? 0 });
    case 'failed':
      return t('knowledge.status.failedLong', { reason: view.document?.error?.message ?? '' });
  }
}
