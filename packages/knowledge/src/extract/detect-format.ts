import {
  KNOWLEDGE_FORMAT_BY_EXTENSION,
  KNOWLEDGE_FORMAT_BY_MEDIA_TYPE,
  type KnowledgeDocumentFormat,
} from '@agentry/contract';

const BY_EXTENSION = KNOWLEDGE_FORMAT_BY_EXTENSION;
const BY_MEDIA_TYPE = KNOWLEDGE_FORMAT_BY_MEDIA_TYPE;

/**
 * A document's format from its bytes' signature, its media type and its file name, in that order
 * of trust; null when it is none of the supported formats.
 *
 * @example
 * detectFormat({ filename: 'guide.pdf', mediaType: 'application/octet-stream', bytes }) // 'pdf'
 */
export function detectFormat(input: {
  filename?: string | null;
  mediaType?: string | null;
  bytes: Uint8Array;
}): KnowledgeDocumentFormat | null {
  const { bytes } = input;
  if (bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) return 'pdf'; // %PDF
  const media = input.mediaType?.split(';')[0]?.trim().toLowerCase();
  const byMedia = media ? BY_MEDIA_TYPE[media] : undefined;
  const extension = input.filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  const byName = extension ? BY_EXTENSION[extension] : undefined;
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b; // PK: DOCX is a zip
  if (zip) return byMedia === 'docx' || byName === 'docx' ? 'docx' : null;
  if (byMedia === 'pdf' || byName === 'pdf' || byMedia === 'docx' || byName === 'docx') return null; // says so, is not
  return byMedia ?? byName ?? null;
}
