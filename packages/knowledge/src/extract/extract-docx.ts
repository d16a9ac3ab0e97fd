import mammoth from 'mammoth';
import { unreadable } from './extract-errors.ts';

/**
 * A DOCX as HTML (mammoth maps Word's Heading 1–6 styles to `h1`–`h6`), for the HTML path so
 * headings survive.
 */
export async function docxToHtml(bytes: Uint8Array): Promise<string> {
  try {
    const { value } = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) },
    );
    return value;
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : String(error);
    throw unreadable(`The DOCX could not be read: ${reason || 'unknown error'}`);
  }
}
