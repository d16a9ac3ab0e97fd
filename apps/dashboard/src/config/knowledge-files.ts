import {
  KNOWLEDGE_FORMAT_BY_EXTENSION,
  KNOWLEDGE_FORMAT_BY_MEDIA_TYPE,
  type KnowledgeDocumentFormat,
} from '@agentry/contract';

/**
 * What the upload accepts, checked in the browser before a byte is sent so a wrong file is refused at
 * once; the API stays the judge (it reads the bytes' signature and answers `unsupported_document_type`
 * or `document_too_large` with a message that is shown as is).
 */

const EXTENSIONS = KNOWLEDGE_FORMAT_BY_EXTENSION;
const MEDIA_TYPES = KNOWLEDGE_FORMAT_BY_MEDIA_TYPE;

/**
 * The largest file the API takes (its per-file bound); a larger one is refused here without uploading.
 * Keep equal to the API's limit: a smaller value here would refuse files the server accepts.
 */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** The file picker's `accept`: the formats' name endings and media types. */
export const UPLOAD_ACCEPT = [
  ...Object.keys(EXTENSIONS).map((ext) => `.${ext}`),
  ...Object.keys(MEDIA_TYPES).filter((type) => type !== 'text/plain'),
].join(',');

/** A file as the browser describes it (`File` has these). */
export interface FileFacts {
  name: string;
  size: number;
  type: string;
}

export type FileCheck =
  | { ok: true; format: KnowledgeDocumentFormat }
  | { ok: false; problem: 'type' }
  | { ok: false; problem: 'size'; maxBytes: number }
  | { ok: false; problem: 'empty' };

/**
 * Whether `file` is worth uploading: a supported format by name or media type, not empty, not over
 * `maxBytes`. The name's ending wins over a generic media type (`application/octet-stream`, none).
 *
 * @example
 * checkFile({ name: 'guide.pdf', size: 2048, type: 'application/pdf' }); // { ok: true, format: 'pdf' }
 * checkFile({ name: 'photo.png', size: 2048, type: 'image/png' }); // { ok: false, problem: 'type' }
 */
export function checkFile(file: FileFacts, maxBytes = MAX_UPLOAD_BYTES): FileCheck {
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase();
  const byName = extension ? EXTENSIONS[extension] : undefined;
  const media = file.type.split(';')[0]?.trim().toLowerCase() ?? '';
  const byMedia = MEDIA_TYPES[media];
  const format = byName ?? byMedia;
  if (!format) return { ok: false, problem: 'type' };
  if (file.size === 0) return { ok: false, problem: 'empty' };
  if (file.size > maxBytes) return { ok: false, problem: 'size', maxBytes };
  return { ok: true, format };
}

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/**
 * A size for people: bytes in the largest unit that keeps the number at least 1, one decimal
 * below 10 (1024 per unit, as file managers count).
 *
 * @example
 * formatBytes(1536); // '1.5 KB'
 * formatBytes(20 * 1024 * 1024); // '20 MB'
 */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit > 0 && value < 10 ? 1 : 0;
  const text = value.toFixed(digits).replace(/\.0$/, '');
  return `${text} ${UNITS[unit]}`;
}
