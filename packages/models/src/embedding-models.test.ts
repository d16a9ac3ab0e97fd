import { createEgressPolicy, egressModelFetch } from '@agentry/http-tools';
import { resolveEmbeddingDimensions } from '@agentry/llm';
import { hashEmbedding } from '@agentry/provider-demo';
import { type FakeLlmServer, startFakeLlm } from '@agentry/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEmbeddingModelSpec } from './embedding-model-spec.ts';
import { defaultEmbeddingModelSpec, embeddingModelFor } from './embedding-models.ts';
import { modelSettingsFromEnv } from './model-settings-env.ts';
import { withTenantProviders } from './tenant-model-settings.ts';

const notConfigured = expect.objectContaining({ code: 'embeddings_not_configured', status: 503 });

describe('embedding model specs', () => {
  it('parses provider and model, keeping slashes in the model name', () => {
    expect(parseEmbeddingModelSpec('openai/text-embedding-3-small')).toEqual({
      provider: 'openai',
      model: 'text-embedding-3-small',
    });
    expect(parseEmbeddingModelSpec('openai_compatible/BAAI/bge-m3')).toEqual({
      provider: 'openai_compatible',
      model: 'BAAI/bge-m3',
    });
    expect(parseEmbeddingModelSpec('local/hashing-v1')).toEqual({ provider: 'local', model: 'hashing-v1' });
  });

  it('refuses malformed specs, unknown providers and unknown local models', () => {
    for (const spec of ['', 'openai', '/x', 'openai/', 'cohere/embed-v4', 'local/other', 'openai/a b', 'anthropic/x']) {
      expect(() => parseEmbeddingModelSpec(spec), spec).toThrow(notConfigured);
    }
  });

  it('answers any string with a spec or embeddings_not_configured, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 60 }),
          // Separators, controls and spaces where they hurt most.
          fc.string({ unit: fc.constantFrom('/', ' ', '\n', '\t', '\u0000', 'a', '_', 'é', '中'), maxLength: 30 }),
          fc
            .tuple(fc.constantFrom('openai', 'openai_compatible', 'local', 'x'), fc.string({ unit: 'grapheme' }))
            .map(([p, m]) => `${p}/${m}`),
        ),
        (spec) => {
          try {
            const parsed = parseEmbeddingModelSpec(spec);
            const providers: string[] = ['openai', 'openai_compatible', 'local'];
            return (
              providers.includes(parsed.provider) &&
              `${parsed.provider}/${parsed.model}` === spec &&
              /^\S+$/.test(parsed.model)
            );
          } catch (error) {
            return (error as { code?: string }).code === 'embeddings_not_configured';
          }
        },
      ),
    );
  });

  it('reads EMBEDDING_MODEL from the environment and stops on a bad one', () => {
    expect(modelSettingsFromEnv({ EMBEDDING_MODEL: 'local/hashing-v1' }).embeddingModel).toBe('local/hashing-v1');
    expect(modelSettingsFromEnv({}).embeddingModel).toBeUndefined();
    expect(() => modelSettingsFromEnv({ EMBEDDING_MODEL: 'bert' })).toThrow(
      /Invalid environment variable EMBEDDING_MODEL/,
    );
  });
});

describe('defaultEmbeddingModelSpec', () => {
  it('prefers the operator’s EMBEDDING_MODEL, then OpenAI itself, then the built-in model', () => {
    expect(defaultEmbeddingModelSpec({ embeddingModel: 'local/hashing-v1', openai: { apiKey: 'sk-x' } })).toBe(
      'local/hashing-v1',
    );
    expect(defaultEmbeddingModelSpec({ openai: { apiKey: 'sk-x' } })).toBe('openai/text-embedding-3-small');
    expect(defaultEmbeddingModelSpec({ openai: { apiKey: 'sk-x', baseURL: 'https://api.openai.com/v1' } })).toBe(
      'openai/text-embedding-3-small',
    );
    expect(defaultEmbeddingModelSpec({})).toBe('local/hashing-v1');
    expect(defaultEmbeddingModelSpec({ anthropic: { apiKey: 'sk-ant' } })).toBe('local/hashing-v1');
    // A gateway or local server may not serve OpenAI's models: the operator names one instead.
    expect(defaultEmbeddingModelSpec({ openai: { apiKey: 'sk-x', baseURL: 'http://localhost:11434/v1' } })).toBe(
      'local/hashing-v1',
    );
  });

  it('counts a tenant’s own OpenAI key', () => {
    const tenant = withTenantProviders({}, [{ provider: 'openai', apiKey: 'sk-tenant' }]);
    expect(defaultEmbeddingModelSpec(tenant)).toBe('openai/text-embedding-3-small');
    const operatorChoice = withTenantProviders({ embeddingModel: 'local/hashing-v1' }, [
      { provider: 'openai', apiKey: 'sk-tenant' },
    ]);
    expect(defaultEmbeddingModelSpec(operatorChoice)).toBe('local/hashing-v1');
  });
});

describe('embeddingModelFor', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlm();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => server.reset());

  it('builds the built-in model with no settings at all', async () => {
    const model = embeddingModelFor('local/hashing-v1', {});
    expect(model).toMatchObject({ provider: 'local', modelId: 'hashing-v1', dimensions: 256 });
    expect(await model.embed(['hi'])).toEqual([hashEmbedding('hi', 256)]);
  });

  it('says what to configure when credentials are missing', () => {
    expect(() => embeddingModelFor('openai/text-embedding-3-small', {})).toThrow(
      expect.objectContaining({ code: 'embeddings_not_configured', message: expect.stringMatching(/OPENAI_API_KEY/) }),
    );
    expect(() => embeddingModelFor('openai_compatible/bge-m3', { openai: { apiKey: 'sk-x' } })).toThrow(
      expect.objectContaining({ code: 'embeddings_not_configured', message: expect.stringMatching(/base URL/) }),
    );
    expect(() => embeddingModelFor('cohere/embed', { openai: { apiKey: 'sk-x' } })).toThrow(notConfigured);
  });

  it('embeds through the SDK with the operator’s OpenAI settings, built once', async () => {
    const settings = { openai: { apiKey: 'sk-operator', baseURL: server.openaiBaseUrl }, maxRetries: 0 };
    const model = embeddingModelFor('openai/text-embedding-3-small', settings, { dimensions: 32 });
    expect(embeddingModelFor('openai/text-embedding-3-small', settings, { dimensions: 32 })).toBe(model);
    expect(model).toMatchObject({ provider: 'openai', modelId: 'text-embedding-3-small', dimensions: 32 });
    const [vector] = await model.embed(['Where is my parcel?']);
    const expected = hashEmbedding('Where is my parcel?', 32);
    for (const [k, x] of vector!.entries()) expect(x).toBeCloseTo(expected[k]!, 6);
    expect(server.embeddingRequests[0]?.headers.authorization).toBe('Bearer sk-operator');
    expect(server.embeddingRequests[0]?.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 32 });
  });

  it('learns an unknown compatible model’s dimensions from the operator’s OPENAI_BASE_URL server', async () => {
    const settings = modelSettingsFromEnv({ OPENAI_BASE_URL: server.openaiBaseUrl });
    const model = embeddingModelFor('openai_compatible/bge-m3', settings);
    expect(model.dimensions).toBe(0);
    expect(await resolveEmbeddingDimensions(model)).toBe(256);
    expect(model.dimensions).toBe(256);
    expect(server.embeddingRequests).toHaveLength(1);
  });

  it('sends a tenant’s own key to its own base URL through the egress guard only', async () => {
    const platform = { openai: { apiKey: 'sk-operator' }, maxRetries: 0 };
    const tenant = withTenantProviders(platform, [
      { provider: 'openai_compatible', apiKey: 'sk-tenant', baseURL: server.openaiBaseUrl },
    ]);
    expect(() => embeddingModelFor('openai_compatible/bge-m3', tenant)).toThrow(/egress-guarded fetch/);
    // The strict policy refuses a loopback address: the tenant cannot reach the platform's network.
    const refused = embeddingModelFor('openai_compatible/bge-m3', tenant, { fetch: egressModelFetch() });
    await expect(refused.embed(['x'])).rejects.toMatchObject({
      code: 'egress_forbidden_address',
    });
    expect(server.embeddingRequests).toHaveLength(0);
    const allowed = createEgressPolicy({ allowlist: ['127.0.0.1'] });
    const model = embeddingModelFor('openai_compatible/bge-m3', tenant, { fetch: egressModelFetch(allowed) });
    expect(await model.embed(['退货政策', 'returns'])).toHaveLength(2);
    expect(server.embeddingRequests[0]?.headers.authorization).toBe('Bearer sk-tenant');
  });

  it('maps a provider failure to the model error codes', async () => {
    const settings = { openai: { apiKey: 'sk-operator', baseURL: server.openaiBaseUrl }, maxRetries: 0 };
    server.enqueueEmbeddings({ type: 'error', status: 429, retryAfterSeconds: 3 });
    await expect(embeddingModelFor('openai/text-embedding-3-large', settings).embed(['x'])).rejects.toMatchObject({
      code: 'model_rate_limited',
      retryAfterMs: 3000,
    });
  });
});
