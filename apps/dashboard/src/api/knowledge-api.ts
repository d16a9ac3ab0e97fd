import type {
  CreateKnowledgeBaseBody,
  CreateKnowledgeDocumentBody,
  KnowledgeBase,
  KnowledgeChunk,
  KnowledgeDocument,
  KnowledgeSearchBody,
  KnowledgeSearchResult,
  Page,
  PatchKnowledgeBaseBody,
} from '@agentry/contract/schemas';
import { apiFetch, type Input } from './client.ts';
import { type UploadProgress, uploadForm } from './upload.ts';

const enc = encodeURIComponent;

/** A chunk as the document's chunk list gives it (no search score). */
export type StoredChunk = Omit<KnowledgeChunk, 'score'>;

export type NewBase = Input<typeof CreateKnowledgeBaseBody>;
export type BasePatch = Input<typeof PatchKnowledgeBaseBody>;
export type NewDocument = Input<typeof CreateKnowledgeDocumentBody>;
type SearchBody = Input<typeof KnowledgeSearchBody>;

/** The most the dashboard lists of one thing (bases of a tenant, documents of a base, chunks of a document). */
const LIST_LIMIT = 100;

const bases = '/v1/knowledge-bases';
const base = (id: string) => `${bases}/${enc(id)}`;
const documents = (id: string) => `${base(id)}/documents`;
const document = (id: string, documentId: string) => `${documents(id)}/${enc(documentId)}`;

/** `/v1/knowledge-bases`: a tenant's bases, their documents, chunks and test searches. */
export const knowledgeApi = {
  list: async (): Promise<KnowledgeBase[]> =>
    (await apiFetch<Page<KnowledgeBase>>('GET', `${bases}?limit=${LIST_LIMIT}`)).data,
  create: (body: NewBase) => apiFetch<KnowledgeBase>('POST', bases, body),
  get: (id: string) => apiFetch<KnowledgeBase>('GET', base(id)),
  update: (id: string, body: BasePatch) => apiFetch<KnowledgeBase>('PATCH', base(id), body),
  remove: (id: string) => apiFetch<void>('DELETE', base(id)),

  documents: async (id: string): Promise<KnowledgeDocument[]> =>
    (await apiFetch<Page<KnowledgeDocument>>('GET', `${documents(id)}?limit=${LIST_LIMIT}`)).data,
  document: (id: string, documentId: string) => apiFetch<KnowledgeDocument>('GET', document(id, documentId)),
  removeDocument: (id: string, documentId: string) => apiFetch<void>('DELETE', document(id, documentId)),
  resync: (id: string, documentId: string) => apiFetch<KnowledgeDocument>('POST', `${document(id, documentId)}/resync`),
  chunks: async (id: string, documentId: string): Promise<StoredChunk[]> =>
    (await apiFetch<Page<StoredChunk>>('GET', `${document(id, documentId)}/chunks?limit=${LIST_LIMIT}`)).data,

  /** Text typed or pasted, or a web page (crawled when `crawl` says so): answers 202 with the queued document. */
  addDocument: (id: string, body: NewDocument) => apiFetch<KnowledgeDocument>('POST', documents(id), body),
  /** A file as multipart (`file`, optional `title`), reporting the bytes sent. */
  upload: (
    id: string,
    file: File,
    options: { title?: string; onProgress?: (progress: UploadProgress) => void; signal?: AbortSignal } = {},
  ) => {
    const form = new FormData();
    form.append('file', file, file.name);
    if (options.title?.trim()) form.append('title', options.title.trim());
    return uploadForm<KnowledgeDocument>(documents(id), form, {
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  },

  search: (id: string, body: SearchBody) =>
    apiFetch<KnowledgeSearchResult>('POST', `${base(id)}/search`, body satisfies SearchBody),
};
