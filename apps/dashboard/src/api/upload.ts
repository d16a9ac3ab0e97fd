import { ProblemError } from '@agentry/contract';
import { authHeaders, sessionExpired } from '../auth/session-store.ts';
import { apiBase } from './api-base.ts';

/** How much of a request body was sent: `loaded` of `total` bytes. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * The sent share of an upload, 0…1 (0 while the total is unknown), for a progress bar.
 *
 * @example
 * uploadedShare({ loaded: 512, total: 1024 }); // 0.5
 */
export function uploadedShare({ loaded, total }: UploadProgress): number {
  if (!(total > 0) || !Number.isFinite(loaded)) return 0;
  return Math.min(1, Math.max(0, loaded / total));
}

/** The answer's body parsed as JSON, else its text, else undefined. */
export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/**
 * Posts `form` (multipart) to the API with the sign-in's headers, reporting the bytes sent: `fetch`
 * has no upload progress, `XMLHttpRequest` does. Resolves with the parsed JSON of a 2xx answer;
 * anything else rejects with ProblemError (network failures as `network_error`, aborts as AbortError).
 *
 * @example
 * const form = new FormData();
 * form.append('file', file);
 * const doc = await uploadForm<KnowledgeDocument>('/v1/knowledge-bases/kb1/documents', form, { onProgress });
 */
export function uploadForm<T>(path: string, form: FormData, { onProgress, signal }: UploadOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('The upload was aborted.', 'AbortError'));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${apiBase()}${path}`);
    // The session cookie goes with same-origin requests only, as with fetch's `same-origin`.
    xhr.withCredentials = false;
    xhr.setRequestHeader('accept', 'application/json');
    for (const [name, value] of Object.entries(authHeaders('POST', path))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) =>
      onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
    xhr.onload = () => {
      const body = parseBody(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as T);
        return;
      }
      if (xhr.status === 401) sessionExpired();
      reject(ProblemError.fromResponse(xhr.status, body, xhr.getResponseHeader('retry-after')));
    };
    xhr.onerror = () => reject(ProblemError.network('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new DOMException('The upload was aborted.', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
