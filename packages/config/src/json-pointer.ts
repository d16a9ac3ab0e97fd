/**
 * Builds a JSON pointer (RFC 6901) from path segments.
 *
 * @example
 * pointer('tools', 0, 'endpoint'); // '/tools/0/endpoint'
 */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * Turns a JSON pointer into the dotted form people read in messages.
 *
 * @example
 * readablePath('/tools/0/endpoint/body/email'); // 'tools[0].endpoint.body.email'
 */
export function readablePath(jsonPointer: string): string {
  if (jsonPointer === '') return '(top level)';
  let out = '';
  for (const raw of jsonPointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}
