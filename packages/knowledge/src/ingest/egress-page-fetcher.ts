import { errors, isAppError } from '@agentry/errors';
import { type EgressPolicy, egressFetch, isEgressError } from '@agentry/http-tools';
import type { PageFetcher } from '../types.ts';

/**
 * A {@link PageFetcher} through the egress guard (`policy`: the platform's with the tenant's
 * allowlist), reading at most `maxBytes` (`document_too_large` past it). A site that cannot be
 * reached is the document's fault (`document_unreadable`; a resync tries again), not a fault of
 * ours to retry forever.
 *
 * @example
 * const fetchPage = createEgressPageFetcher({ policy: withAllowlist(egress, tenant.egressAllowlist), maxBytes: 20 << 20 });
 */
export function createEgressPageFetcher(options: {
  policy: EgressPolicy;
  maxBytes: number;
  userAgent?: string;
}): PageFetcher {
  return async (url, signal) => {
    try {
      const response = await egressFetch(
        { method: 'GET', url, headers: { 'user-agent': options.userAgent ?? 'AgentryBot/1.0', accept: '*/*' } },
        { policy: options.policy, signal },
      );
      const bytes = await readBoundedBytes(response, options.maxBytes, url);
      return {
        url: response.url || url,
        status: response.status,
        contentType: response.headers.get('content-type'),
        bytes,
      };
    } catch (error) {
      if (isAppError(error)) throw error;
      throw errors.of({
        code: 'document_unreadable',
        message: `${url} could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
        category: 'user',
        cause: error,
      });
    }
  };
}

async function readBoundedBytes(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const tooLarge = () =>
    errors.of({
      code: 'document_too_large',
      message: `${url} is larger than ${maxBytes} bytes`,
      category: 'user',
      details: { limit_bytes: maxBytes },
    });
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (error) {
      if (isEgressError(error) && error.code === 'egress_response_too_large') throw tooLarge();
      throw error;
    }
    if (read.done) break;
    total += read.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
