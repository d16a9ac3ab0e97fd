import type { KnowledgeDocument } from '@agentry/contract/schemas';
import { describe, expect, it } from 'vitest';
import { hasPending, rowPending, UPLOAD_WEIGHT, type UploadRow, uploadView } from './knowledge-progress.ts';

const doc = (patch: Partial<KnowledgeDocument>): KnowledgeDocument => ({
  object: 'knowledge_document',
  id: 'd1',
  knowledge_base_id: 'kb1',
  title: 'Guide',
  source: 'file',
  format: 'markdown',
  filename: 'guide.md',
  url: null,
  status: 'queued',
  progress: 0,
  error: null,
  bytes: 10,
  pages: null,
  chunk_count: 0,
  crawl: null,
  created_at: '2026-11-26T00:00:00Z',
  updated_at: '2026-11-26T00:00:00Z',
  ...patch,
});

const sent: UploadRow = { key: 'k', name: 'guide.md', size: 10, phase: 'sent', documentId: 'd1' };

describe('hasPending', () => {
  it('is true while a document is queued or processing, only then', () => {
    expect(hasPending([])).toBe(false);
    expect(hasPending([{ status: 'ready' }, { status: 'failed' }])).toBe(false);
    expect(hasPending([{ status: 'ready' }, { status: 'queued' }])).toBe(true);
    expect(hasPending([{ status: 'processing' }])).toBe(true);
  });
});

describe('uploadView', () => {
  it('fills the first part of the bar with the bytes sent', () => {
    const view = uploadView({ key: 'k', name: 'a.md', size: 10, phase: 'uploading', sent: 0.5 });
    expect(view).toMatchObject({ stage: 'uploading', stageShare: 0.5 });
    expect(view.overall).toBeCloseTo(UPLOAD_WEIGHT / 2);
    expect(rowPending(view)).toBe(true);
  });

  it('follows the document: queued, processing with its share, then ready', () => {
    expect(uploadView(sent)).toMatchObject({ stage: 'queued', overall: UPLOAD_WEIGHT });
    expect(uploadView(sent, doc({ status: 'queued' }))).toMatchObject({ stage: 'queued', overall: UPLOAD_WEIGHT });
    const half = uploadView(sent, doc({ status: 'processing', progress: 0.5 }));
    expect(half.stage).toBe('processing');
    expect(half.stageShare).toBe(0.5);
    expect(half.overall).toBeCloseTo(UPLOAD_WEIGHT + (1 - UPLOAD_WEIGHT) / 2);
    const ready = uploadView(sent, doc({ status: 'ready', progress: 1 }));
    expect(ready).toMatchObject({ stage: 'ready', overall: 1, stageShare: 1 });
    expect(rowPending(ready)).toBe(false);
  });

  it('ends a failed document and keeps it (its reason is shown)', () => {
    const failed = doc({ status: 'failed', error: { code: 'document_unreadable', message: 'The PDF has no text.' } });
    const view = uploadView(sent, failed);
    expect(view.stage).toBe('failed');
    expect(view.document?.error?.message).toBe('The PDF has no text.');
    expect(rowPending(view)).toBe(false);
  });

  it('keeps the bar within 0…1 whatever the numbers say', () => {
    expect(uploadView({ key: 'k', name: 'a', size: 1, phase: 'uploading', sent: Number.NaN }).overall).toBe(0);
    expect(uploadView({ key: 'k', name: 'a', size: 1, phase: 'uploading', sent: 7 }).overall).toBe(UPLOAD_WEIGHT);
    expect(uploadView(sent, doc({ status: 'processing', progress: 3 })).overall).toBe(1);
  });

  it('shows refused and failed uploads without a bar', () => {
    const rejected = uploadView({
      key: 'k',
      name: 'a.png',
      size: 1,
      phase: 'rejected',
      check: { ok: false, problem: 'type' },
    });
    expect(rejected).toMatchObject({ stage: 'rejected', overall: 0 });
    expect(rowPending(rejected)).toBe(false);
    expect(uploadView({ key: 'k', name: 'a', size: 1, phase: 'error', error: new Error('x') }).stage).toBe('error');
  });

  it('a file waiting for its turn has an empty bar and is still on its way', () => {
    const waiting = uploadView({ key: 'k', name: 'a.md', size: 1, phase: 'waiting' });
    expect(waiting).toMatchObject({ stage: 'waiting', overall: 0 });
    expect(rowPending(waiting)).toBe(true);
  });
});
