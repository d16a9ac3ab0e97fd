import { z } from 'zod';
import { KNOWLEDGE_DOCUMENT_FORMATS } from '../knowledge-formats.ts';
import { component, id, list, timestamp } from './common.ts';

/**
 * Knowledge bases: a tenant's documents and sites, chunked, embedded and indexed, that agents
 * answer from with citations (`/v1/knowledge-bases`).
 */

export const KNOWLEDGE_DOCUMENT_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export const KnowledgeDocumentStatusSchema = z.enum(KNOWLEDGE_DOCUMENT_STATUSES);
export type KnowledgeDocumentStatus = z.infer<typeof KnowledgeDocumentStatusSchema>;

/** What a document was made from: an uploaded file, text sent as JSON, or a fetched URL (a crawl's pages too). */
export const KNOWLEDGE_SOURCE_KINDS = ['file', 'text', 'url'] as const;
export const KnowledgeSourceKindSchema = z.enum(KNOWLEDGE_SOURCE_KINDS);

/** The formats a document may be in. */
export { KNOWLEDGE_DOCUMENT_FORMATS, type KnowledgeDocumentFormat } from '../knowledge-formats.ts';
export const KnowledgeDocumentFormatSchema = z.enum(KNOWLEDGE_DOCUMENT_FORMATS);

export const KnowledgeBaseSchema = component(
  'KnowledgeBase',
  z.object({
    object: z.literal('knowledge_base'),
    id,
    name: z.string(),
    description: z.string().nullable(),
    embedding_model: z
      .string()
      .describe('The model the base’s chunks are embedded with (`provider/model`), fixed when the base is made'),
    document_count: z.number().int().nonnegative(),
    chunk_count: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative().describe('The size of the base’s stored sources'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
export const KnowledgeBaseListSchema = component('KnowledgeBaseList', list(KnowledgeBaseSchema));

export const KnowledgeDocumentSchema = component(
  'KnowledgeDocument',
  z.object({
    object: z.literal('knowledge_document'),
    id,
    knowledge_base_id: id,
    title: z.string(),
    source: KnowledgeSourceKindSchema,
    format: KnowledgeDocumentFormatSchema.nullable().describe('Null until a URL’s content was fetched'),
    filename: z.string().nullable(),
    url: z.string().nullable().describe('The page’s address (URL sources only): citations link to it'),
    status: KnowledgeDocumentStatusSchema,
    progress: z
      .number()
      .min(0)
      .max(1)
      .describe('While `processing`: the share done (extracting, chunking, embedding, indexing)'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Why it `failed`: a stable code (`document_unreadable`, `egress_*`, …) and a message for people'),
    bytes: z.number().int().nonnegative(),
    pages: z.number().int().nonnegative().nullable().describe('PDF pages, or pages fetched by a crawl'),
    chunk_count: z.number().int().nonnegative(),
    parent_id: id
      .nullable()
      .optional()
      .describe('The crawl’s start document, for a page a crawl found (deleting the start document deletes its pages)'),
    crawl: z
      .object({
        max_pages: z.number().int(),
        same_site: z.boolean(),
        skipped: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('After a crawl: pages found but not added because the base or the tenant was full'),
      })
      .nullable()
      .describe('A site crawl: its bounds (the pages it found become documents of their own)'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
export const KnowledgeDocumentListSchema = component('KnowledgeDocumentList', list(KnowledgeDocumentSchema));

export const KnowledgeChunkSchema = component(
  'KnowledgeChunk',
  z.object({
    object: z.literal('knowledge_chunk'),
    id,
    document_id: id,
    knowledge_base_id: id,
    title: z.string().describe('The document’s title'),
    heading_path: z.array(z.string()).describe('The headings above the chunk, outermost first'),
    page: z.number().int().positive().nullable().describe('PDF page (1-based)'),
    url: z.string().nullable(),
    text: z.string(),
    score: z.number().describe('Reciprocal rank fusion of vector and full-text ranks (higher is better)'),
  }),
);
export const KnowledgeSearchResultSchema = component(
  'KnowledgeSearchResult',
  z.object({
    object: z.literal('list'),
    data: z.array(KnowledgeChunkSchema),
    vector_search: z
      .enum(['pgvector', 'builtin'])
      .describe('How vectors were compared: pgvector, or the exact search built in (databases without the extension)'),
  }),
);
export const KnowledgeChunkListSchema = component(
  'KnowledgeChunkList',
  list(KnowledgeChunkSchema.omit({ score: true })),
);

export type KnowledgeBase = z.infer<typeof KnowledgeBaseSchema>;
export type KnowledgeDocument = z.infer<typeof KnowledgeDocumentSchema>;
export type KnowledgeChunk = z.infer<typeof KnowledgeChunkSchema>;
export type KnowledgeSearchResult = z.infer<typeof KnowledgeSearchResultSchema>;

const name = z.string().trim().min(1).max(120);
const description = z.string().max(2000);

/** `POST /v1/knowledge-bases`. */
export const CreateKnowledgeBaseBody = z.strictObject({
  name,
  description: description.optional(),
  embedding_model: z
    .string()
    .max(200)
    .optional()
    .describe('`provider/model`; default: the tenant’s, else the platform’s embedding model'),
});

/** `PATCH /v1/knowledge-bases/{id}`. */
export const PatchKnowledgeBaseBody = z.strictObject({
  name: name.optional(),
  description: description.nullable().optional(),
});

/** `POST /v1/knowledge-bases/{id}/documents` as JSON: text, or a URL (optionally crawled). */
export const CreateKnowledgeDocumentBody = z.union([
  z.strictObject({
    text: z.string().min(1),
    title: z.string().trim().min(1).max(300),
    format: z.enum(['text', 'markdown', 'html', 'csv']).optional().describe('How to read `text`; default `text`'),
  }),
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    title: z.string().trim().min(1).max(300).optional(),
    crawl: z
      .strictObject({
        max_pages: z.number().int().min(1).max(500),
        same_site: z.boolean().default(true),
      })
      .optional()
      .describe('Follow the page’s links (robots.txt honoured), at most `max_pages` pages'),
  }),
]);

/** `POST /v1/knowledge-bases/{id}/search`. */
export const KnowledgeSearchBody = z.strictObject({
  query: z.string().trim().min(1).max(2000),
  top_k: z.number().int().min(1).max(50).default(5),
});

/** One source an answer used: what the widget shows under it and the transcript keeps. */
export const CitationSchema = component(
  'Citation',
  z.object({
    marker: z.number().int().positive().describe('The `[n]` in the answer'),
    document_id: id,
    knowledge_base_id: id,
    title: z.string(),
    url: z.string().nullable().describe('Only for URL sources'),
    page: z.number().int().positive().nullable(),
    heading_path: z.array(z.string()),
    snippet: z.string().max(500),
  }),
);
export type Citation = z.infer<typeof CitationSchema>;
