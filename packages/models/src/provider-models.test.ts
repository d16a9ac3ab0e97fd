import { describe, expect, it } from 'vitest';
import { listProviderModels } from './provider-models.ts';

describe('listProviderModels', () => {
  it('asks OpenAI-style servers for {base}/models with a bearer key', async () => {
    const seen: Array<[string, Record<string, string>]> = [];
    const list = await listProviderModels(
      'openai_compatible',
      { apiKey: 'k', baseURL: 'http://x/v1/' },
      async (url, h) => {
        seen.push([url, h]);
        return Response.json({ data: [{ id: 'b' }, { id: 'a' }] });
      },
    );
    expect(list).toEqual({ ok: true, models: ['a', 'b'] });
    expect(seen[0]![0]).toBe('http://x/v1/models');
    expect(seen[0]![1].authorization).toBe('Bearer k');
  });

  it('asks Anthropic for /v1/models with x-api-key, and says a refused key is model_auth_failed', async () => {
    let seen = '';
    const list = await listProviderModels('anthropic', { apiKey: 'k' }, async (url, h) => {
      seen = `${url} ${h['x-api-key']}`;
      return new Response('{}', { status: 401 });
    });
    expect(seen).toBe('https://api.anthropic.com/v1/models k');
    expect(list).toMatchObject({ ok: false, code: 'model_auth_failed', status: 401 });
  });

  it('reports other statuses as model_connection_failed', async () => {
    const list = await listProviderModels('openai', {}, async () => new Response('no', { status: 500 }));
    expect(list).toMatchObject({ ok: false, code: 'model_connection_failed', status: 500 });
  });
});
