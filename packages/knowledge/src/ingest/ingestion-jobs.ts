import { type Db, requeueStaleKnowledgeDocument, staleKnowledgeDocuments } from '@agentry/db';
import {
  type JobHandler,
  type JobQueue,
  type JobWorker,
  type SweptWorker,
  startSweptWorker,
  type WorkerOptions,
} from '@agentry/queue';
import { type IngestDependencies, ingestDocument } from './ingest-document.ts';

/** The payload of an ingestion job. */
export interface KnowledgeJobData {
  tenantId: string;
  documentId: string;
}

/** The BullMQ queue of ingestion jobs (same Redis prefix as runs, its own queue). */
export const KNOWLEDGE_QUEUE_NAME = 'knowledge';

/** Ingestion runs next to runs: few at a time, so it never starves them. */
export const DEFAULT_INGESTION_CONCURRENCY = 2;

/**
 * A document's job id: the document and its generation (a resync bumps it), so a document is
 * never queued twice and a resync is not mistaken for the finished job. No `:` (BullMQ refuses it).
 *
 * @example
 * await queue.enqueue(knowledgeJobId(doc), { tenantId, documentId: doc.id });
 */
export function knowledgeJobId(document: { id: string; generation: number }): string {
  return `${document.id}-g${document.generation}`;
}

export interface IngestionWorkerOptions {
  deps: IngestDependencies;
  queue: JobQueue<KnowledgeJobData>;
  /** Starts the queue's consumer (BullMQ's worker or the in-process runner's) with the handler. */
  startWorker(handler: JobHandler<KnowledgeJobData>, options: WorkerOptions): JobWorker;
  concurrency?: number;
  /** Documents untouched this long while `queued`/`processing` are queued again (default 10 min). */
  staleAfterMs?: number;
  /** How often the sweeper looks (default 60 s); 0 turns it off. */
  sweepIntervalMs?: number;
  onError?(error: unknown): void;
}

/** The consumer and its sweeper (`sweep()` runs one pass now, for tests). */
export type IngestionWorker = SweptWorker;

/**
 * Starts ingestion: the queue's consumer runs {@link ingestDocument} per job (an infrastructure
 * fault throws, and the job system retries it with backoff; a crashed worker's job is recovered by
 * BullMQ's stalled-job check), and a low-rate sweeper queues again documents a crashed process
 * left `queued`/`processing` (one indexed query per interval, at most 100 documents each: cost
 * does not grow with the backlog's age).
 *
 * @example
 * const ingestion = startIngestionWorker({ deps, queue, startWorker: (handler, options) => startBullWorker(knowledgeBull, handler, options) });
 */
export function startIngestionWorker(options: IngestionWorkerOptions): IngestionWorker {
  // A crawl's pages are queued on the same queue as the documents that found them.
  const deps: IngestDependencies = {
    ...options.deps,
    enqueue:
      options.deps.enqueue ??
      (async ({ tenantId, document }) => {
        await options.queue.enqueue(knowledgeJobId(document), { tenantId, documentId: document.id });
      }),
  };
  const staleAfterMs = options.staleAfterMs ?? 10 * 60_000;
  return startSweptWorker<KnowledgeJobData>({
    startWorker: options.startWorker,
    handler: async (job) => {
      await ingestDocument(deps, job.data.tenantId, job.data.documentId);
    },
    concurrency: options.concurrency ?? DEFAULT_INGESTION_CONCURRENCY,
    sweep: () => sweepStaleDocuments(options.deps.db, options.queue, staleAfterMs),
    sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
    ...(options.onError ? { onError: options.onError } : {}),
  });
}

/** Queues again (new generation) the documents left unfinished since before `staleAfterMs`. */
export async function sweepStaleDocuments(
  db: Db,
  queue: JobQueue<KnowledgeJobData>,
  staleAfterMs: number,
): Promise<number> {
  const stale = await staleKnowledgeDocuments(db, new Date(Date.now() - staleAfterMs), 100);
  let queued = 0;
  for (const document of stale) {
    const generation = await requeueStaleKnowledgeDocument(db, document.tenantId, document.id, document.generation);
    if (generation === undefined) continue;
    await queue.enqueue(knowledgeJobId({ id: document.id, generation }), {
      tenantId: document.tenantId,
      documentId: document.id,
    });
    queued++;
  }
  return queued;
}
