import type { KnowledgeDocument, KnowledgeDocumentStatus } from '@agentry/contract/schemas';
import type { FileCheck } from './knowledge-files.ts';

/**
 * The progress of a file on its way into a knowledge base: its bytes going up (XMLHttpRequest's
 * upload progress), then the document's own status as the API reports it (queued, processing with
 * a share done, ready or failed).
 */

/** The statuses that change by themselves: while a document has one, the list is refreshed. */
const PENDING: ReadonlySet<KnowledgeDocumentStatus> = new Set(['queued', 'processing']);

/**
 * Whether any document is still on its way (queued or processing): the page refreshes only then.
 *
 * @example
 * hasPending([{ status: 'ready' }, { status: 'processing' }]); // true
 */
export function hasPending(documents: ReadonlyArray<Pick<KnowledgeDocument, 'status'>>): boolean {
  return documents.some((d) => PENDING.has(d.status));
}

/** A file the user dropped or picked, as the upload list holds it. */
export type UploadRow = { key: string; name: string; size: number } & (
  | { phase: 'rejected'; check: Exclude<FileCheck, { ok: true }> }
  | { phase: 'waiting' }
  | { phase: 'uploading'; sent: number }
  | { phase: 'sent'; documentId: string }
  | { phase: 'error'; error: unknown }
);

export type UploadStage = 'rejected' | 'waiting' | 'uploading' | 'error' | KnowledgeDocumentStatus;

/** What one upload row shows: its stage, the bar's overall share (0…1) and the stage's own share. */
export interface UploadView {
  stage: UploadStage;
  /** The bar: sending is the first part, processing the rest. */
  overall: number;
  /** The share of the current stage (the percentage in the label). */
  stageShare: number;
  /** The document once the API has it (its title, its failure). */
  document?: KnowledgeDocument;
}

/** The part of the bar the bytes' upload fills; processing (extract, chunk, embed, index) fills the rest. */
export const UPLOAD_WEIGHT = 0.3;

const clamp = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/**
 * The view of an upload row, given the document the API made of it (from the refreshed list), if any.
 *
 * @example
 * uploadView({ key: 'k', name: 'a.md', size: 10, phase: 'uploading', sent: 0.5 }); // stage 'uploading', overall 0.15
 * uploadView(sentRow, { ...doc, status: 'processing', progress: 0.5 }); // stage 'processing', overall 0.65
 */
export function uploadView(row: UploadRow, document?: KnowledgeDocument): UploadView {
  switch (row.phase) {
    case 'rejected':
      return { stage: 'rejected', overall: 0, stageShare: 0 };
    case 'error':
      return { stage: 'error', overall: 0, stageShare: 0 };
    case 'waiting':
      return { stage: 'waiting', overall: 0, stageShare: 0 };
    case 'uploading': {
      const sent = clamp(row.sent);
      return { stage: 'uploading', overall: sent * UPLOAD_WEIGHT, stageShare: sent };
    }
    case 'sent': {
      if (!document) return { stage: 'queued', overall: UPLOAD_WEIGHT, stageShare: 0 };
      const done = document.status === 'ready' ? 1 : document.status === 'processing' ? clamp(document.progress) : 0;
      const overall = document.status === 'failed' ? 1 : UPLOAD_WEIGHT + (1 - UPLOAD_WEIGHT) * done;
      return { stage: document.status, overall, stageShare: done, document };
    }
  }
}

/** Whether the row still moves by itself (the upload list keeps the page refreshing for it). */
export function rowPending(view: UploadView): boolean {
  return ['waiting', 'uploading', 'queued', 'processing'].includes(view.stage);
}
