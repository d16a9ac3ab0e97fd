import { authHeaders } from '../auth/session.ts';
import { apiBase } from './api-base.ts';
import { ApiError, toProblem } from './problem.ts';

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Lets the app drop back to the login screen when the key stops working. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** One JSON call to the API; failures throw ApiError carrying the problem+json. */
export async function apiFetch<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${apiBase()}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError({ title: 'network error', status: 0, detail: (error as Error).message, code: 'network_error' });
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!res.ok && res.status !== 202) {
    if (res.status === 401) for (const listener of unauthorizedListeners) listener();
    throw new ApiError(toProblem(res.status, parsed));
  }
  return parsed as T;
}
