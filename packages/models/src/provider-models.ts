import type { ConfigurableProvider, ProviderCredentials } from './model-settings.ts';

/**
 * Well-known model names per provider, offered before a connection test has listed the real ones
 * (a custom name is always allowed). `openai_compatible` servers name their own models.
 */
export const SUGGESTED_MODELS: Record<ConfigurableProvider, readonly string[]> = {
  openai: ['gpt-5.4-mini', 'gpt-5.4', 'gpt-4.1-mini', 'gpt-4.1', 'gpt-4o-mini', 'gpt-4o'],
  anthropic: ['claude-sonnet-4-6', 'claude-opus-4-6', 'claude-haiku-4-5'],
  openai_compatible: [],
};

/** Sends one GET (the caller's transport: the API passes its egress guard and a deadline). */
export type ModelListSend = (url: string, headers: Record<string, string>) => Promise<Response>;

/** What asking a provider for its models gave: the names, or why not (a stable error code). */
export type ProviderModelList =
  | { ok: true; models: string[] }
  | { ok: false; code: 'model_auth_failed' | 'model_connection_failed'; message: string; status?: number };

const DEFAULT_BASE: Record<ConfigurableProvider, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  openai_compatible: undefined,
};

/**
 * Asks a provider for its models: the smallest real call that proves the key and the base URL
 * work (no tokens spent). OpenAI and compatible servers answer `GET {base}/models`, Anthropic
 * `GET {base}/v1/models`; both as `{ data: [{ id }] }`. Never throws for the provider's answer:
 * a refused key is `model_auth_failed`, anything else `model_connection_failed`; the transport's
 * own refusals (egress) are the caller's to map.
 *
 * @example
 * const list = await listProviderModels('openai', { apiKey: 'sk-…' }, (url, headers) => fetch(url, { headers }));
 * if (list.ok) console.log(list.models);
 */
export async function listProviderModels(
  provider: ConfigurableProvider,
  creds: ProviderCredentials,
  send: ModelListSend,
): Promise<ProviderModelList> {
  const base = (creds.baseURL ?? DEFAULT_BASE[provider])?.replace(/\/+$/, '');
  if (!base) return { ok: false, code: 'model_connection_failed', message: 'No base URL is set for this provider' };
  const url = provider === 'anthropic' ? `${base}/v1/models` : `${base}/models`;
  const response = await send(url, requestHeaders(provider, creds.apiKey));
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel().catch(() => {});
    return { ok: false, code: 'model_auth_failed', status: response.status, message: 'The provider refused the key' };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    return {
      ok: false,
      code: 'model_connection_failed',
      status: response.status,
      message: `The provider answered ${response.status} to GET ${new URL(url).pathname}`,
    };
  }
  return { ok: true, models: modelIds(await response.json().catch(() => undefined)) };
}

function requestHeaders(provider: ConfigurableProvider, apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (provider === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    if (apiKey) headers['x-api-key'] = apiKey;
  } else if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/** The ids of a `{ data: [{ id }] }` answer, sorted; anything else lists none (the call still worked). */
function modelIds(body: unknown): string[] {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return [];
  const ids = data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  return [...new Set(ids)].sort().slice(0, 500);
}
