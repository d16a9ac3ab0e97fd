import { ProblemError } from '@agentry/contract';
import { authHeaders, sessionExpired } from '../auth/session-store.ts';
import { apiBase } from './api-base.ts';

/**
 * What a body schema of the contract accepts (some bodies are exported as schemas without input
 * types; imported as types only, zod stays out of the bundle).
 *
 * @example
 * type NewBase = Input<typeof CreateKnowledgeBaseBody>;
 */
export type Input<S extends { _zod: { input: unknown } }> = S['_zod']['input'];

/**
 * One request to the API with the sign-in's headers; network failures become ProblemError
 * `network_error`, aborts stay AbortError. The response is returned as is (streams included).
 */
export async function apiRequest(
  method: string,
  path: string,
  init: { body?: unknown; accept?: string; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: init.accept ?? 'application/json', ...authHeaders(method, path) };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(`${apiBase()}${path}`, {
      method,
      headers,
      // The session cookie goes with same-origin requests only (the API sets SameSite=Lax).
      credentials: 'same-origin',
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw ProblemError.network((error as Error).message);
  }
}

/** The failed response as ProblemError; a 401 outside /v1/auth/ also signs the user out. */
export async function failure(res: Response, path: string): Promise<ProblemError> {
  const text = await res.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (res.status === 401 && !path.startsWith('/v1/auth/')) sessionExpired();
  return ProblemError.fromResponse(res.status, parsed, res.headers.get('retry-after'));
}

/** One JSON call to the API; failures throw ProblemError carrying the problem+json. */
export async function apiFetch<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const res = await apiRequest(method, path, {
    ...(body !== undefined ? { body } : {}),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok && res.status !== 202) throw await failure(res, path);
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return text as T;
  }
}
