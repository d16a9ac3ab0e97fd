/**
 * Bytes to text: a byte-order mark decides (UTF-8, UTF-16 LE/BE); for HTML without one, a
 * `<meta charset>` (or `http-equiv` content type) in the first 1024 bytes; else UTF-8. Invalid
 * sequences become U+FFFD, never an error.
 *
 * @example
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), 'text'); // 'hi'
 */
export function decodeText(bytes: Uint8Array, kind: 'html' | 'text'): string {
  const label = bomEncoding(bytes) ?? (kind === 'html' ? metaCharset(bytes) : null) ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder('utf-8'); // a label TextDecoder does not know
  }
  // TextDecoder strips the BOM of its own encoding by default.
  return decoder.decode(bytes);
}

function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

function metaCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  const label = head.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1]?.toLowerCase();
  // A page that says UTF-16 in ASCII is not UTF-16 (the HTML spec reads it as UTF-8).
  if (!label || label.startsWith('utf-16')) return null;
  return label;
}
