import {
  MODEL_PROVIDER_KINDS,
  type ModelProviderKind,
  ModelProviderKindSchema,
  PutModelProviderBody,
} from '@agentry/contract/schemas';
import {
  deleteModelProvider,
  getSealedModelProviders,
  listModelProviders,
  type ModelProviderView,
  putModelProvider,
  setModelProviderModels,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { egressFetch, isEgressError, withAllowlist } from '@agentry/http-tools';
import { listProviderModels, type ProviderModelList, SUGGESTED_MODELS } from '@agentry/models';
import { modelProviderContext, openProvider, secretsNotConfigured } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, type ParamDoc, ref } from '../http/openapi.ts';

/** A connection test waits this long at most (the egress guard's own deadline is longer, for tools). */
const TEST_TIMEOUT_MS = 10_000;

const providerParam: Record<string, ParamDoc> = {
  provider: {
    description: 'The provider: `openai`, `anthropic` or `openai_compatible` (any OpenAI-compatible server)',
    resource: 'model_provider',
    schema: { type: 'string', enum: [...MODEL_PROVIDER_KINDS] },
  },
};

function providerKind(raw: string, unknown: 'invalid' | 'not_found'): ModelProviderKind {
  const parsed = ModelProviderKindSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  if (unknown === 'not_found') throw errors.notFound('model_provider', raw);
  throw errors.badRequest(
    'invalid_model_provider',
    `A model provider is one of ${MODEL_PROVIDER_KINDS.map((k) => `\`${k}\``).join(', ')}`,
  );
}

/** The API's view of a provider: never the key, only whether one is set. */
function present(p: ModelProviderView) {
  return {
    object: 'model_provider' as const,
    provider: p.provider,
    base_url: p.baseUrl,
    api_key_set: p.keySet,
    default_model: p.defaultModel,
    is_default: p.isDefault,
    models: p.models.length > 0 ? p.models : [...SUGGESTED_MODELS[p.provider]],
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/**
 * A tenant's own model providers (the dashboard's "Model providers" page): keys sealed like
 * secrets and never returned, a default provider and model for agents that name none, and a
 * connection test through the egress guard. Runs resolve their model as: the agent config's
 * `model` block, then these, then the operator's environment.
 */
export function modelProviderRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/',
    doc({
      operationId: 'listModelProviders',
      tag: 'Model providers',
      summary: 'The tenant’s own model providers (keys never shown)',
      auth: 'tenant',
      responses: { 200: { description: 'All providers (one page)', schema: ref('ModelProviderList') } },
    }),
  );
  app.get('/', async (c) => {
    const rows = await listModelProviders(deps.db, c.var.tenant.id);
    return c.json({ object: 'list', data: rows.map(present), next_cursor: null });
  });

  app.put(
    '/:provider',
    doc({
      operationId: 'putModelProvider',
      tag: 'Model providers',
      summary: 'Add or change a model provider (the API key is write-only)',
      description:
        'An absent field keeps its stored value; `null` clears it. `openai_compatible` needs a `base_url`. `is_default: true` makes it the provider of agents whose config names none (and takes that from the others).',
      auth: 'tenant',
      path: providerParam,
      body: {
        schema: PutModelProviderBody,
        example: {
          api_key: 'sk-…',
          base_url: 'https://llm.example.com/v1',
          default_model: 'gpt-5.4-mini',
          is_default: true,
        },
      },
      responses: {
        200: { description: 'Changed', schema: ref('ModelProviderPut') },
        201: { description: 'Added', schema: ref('ModelProviderPut') },
      },
      errors: ['invalid_model_provider', 'secrets_not_configured'],
    }),
  );
  app.put('/:provider', async (c) => {
    const provider = providerKind(c.req.param('provider'), 'invalid');
    const body = await readJson(c, PutModelProviderBody);
    const tenantId = c.var.tenant.id;
    if (body.api_key && !deps.secretBox) throw secretsNotConfigured();
    const existing = (await getSealedModelProviders(deps.db, tenantId)).find((p) => p.provider === provider);
    const baseUrl = body.base_url === undefined ? existing?.baseUrl : body.base_url;
    if (provider === 'openai_compatible' && !baseUrl) {
      throw errors.validation('An OpenAI-compatible provider needs a base URL', [
        { path: '/base_url', code: 'required', message: 'Set the server’s base URL (up to /v1)' },
      ]);
    }
    const { provider: saved, created } = await putModelProvider(deps.db, tenantId, provider, {
      ...(body.api_key !== undefined
        ? {
            sealedKey: body.api_key
              ? deps.secretBox!.seal(body.api_key, modelProviderContext(tenantId, provider))
              : null,
          }
        : {}),
      ...(body.base_url !== undefined ? { baseUrl: body.base_url } : {}),
      ...(body.default_model !== undefined ? { defaultModel: body.default_model } : {}),
      ...(body.is_default !== undefined ? { isDefault: body.is_default } : {}),
      // Another server lists other models: the old list would mislead the editor.
      ...(body.base_url !== undefined && body.base_url !== existing?.baseUrl ? { models: [] } : {}),
    });
    // Runs read the tenant's providers only when its row says it has some: this process's key
    // cache sees the changed row now (others when the row's change notification reaches them).
    deps.apiKeyCache?.invalidateTenant(tenantId);
    await audit(
      deps.db,
      c,
      created ? 'model_provider.created' : 'model_provider.updated',
      {
        type: 'model_provider',
        id: provider,
      },
      {
        // What changed, never the key itself.
        ...(body.api_key !== undefined ? { api_key: body.api_key ? 'set' : 'cleared' } : {}),
        ...(body.base_url !== undefined ? { base_url: body.base_url } : {}),
        ...(body.default_model !== undefined ? { default_model: body.default_model } : {}),
        ...(body.is_default !== undefined ? { is_default: body.is_default } : {}),
      },
    );
    const { models: _models, created_at: _c, updated_at: _u, ...shown } = present(saved);
    return c.json({ ...shown, created }, created ? 201 : 200);
  });

  app.delete(
    '/:provider',
    doc({
      operationId: 'deleteModelProvider',
      tag: 'Model providers',
      summary: 'Remove a model provider (its runs fall back to the operator’s settings)',
      auth: 'tenant',
      path: providerParam,
      responses: { 204: { description: 'Removed' } },
      errors: ['model_provider_not_found'],
    }),
  );
  app.delete('/:provider', async (c) => {
    const provider = providerKind(c.req.param('provider'), 'not_found');
    if (!(await deleteModelProvider(deps.db, c.var.tenant.id, provider)))
      throw errors.notFound('model_provider', provider);
    deps.apiKeyCache?.invalidateTenant(c.var.tenant.id);
    await audit(deps.db, c, 'model_provider.deleted', { type: 'model_provider', id: provider });
    return c.body(null, 204);
  });

  app.post(
    '/:provider/test',
    doc({
      operationId: 'testModelProvider',
      tag: 'Model providers',
      summary: 'Test a provider’s connection (lists its models)',
      description: `Asks the provider for its models with the stored key and base URL (\`GET …/models\`: no tokens spent), through the egress guard (a private address only when the tenant's allowlist names it), for at most ${TEST_TIMEOUT_MS / 1000} s. The answer is 200 either way: \`ok: false\` carries the stable code of why (\`model_auth_failed\`, \`model_connection_failed\`, \`egress_forbidden_address\`, …). A successful test stores the listed models for the agent editor.`,
      auth: 'tenant',
      path: providerParam,
      responses: { 200: { description: 'The result', schema: ref('ModelProviderTest') } },
      errors: ['model_provider_not_found', 'secrets_not_configured'],
    }),
  );
  app.post('/:provider/test', async (c) => {
    const provider = providerKind(c.req.param('provider'), 'not_found');
    const tenant = c.var.tenant;
    const row = (await getSealedModelProviders(deps.db, tenant.id)).find((p) => p.provider === provider);
    if (!row) throw errors.notFound('model_provider', provider);
    const opened = openProvider(deps.secretBox, tenant.id, row);
    const policy = withAllowlist(deps.egress, tenant.egressAllowlist);
    const started = Date.now();
    const signal = AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(TEST_TIMEOUT_MS)]);
    const result = await testConnection(() =>
      listProviderModels(provider, { apiKey: opened.apiKey, baseURL: opened.baseURL }, (url, headers) =>
        egressFetch(
          { method: 'GET', url, headers },
          { policy, signal, ...(opened.apiKey ? { secrets: [opened.apiKey] } : {}) },
        ),
      ),
    );
    if (result.ok) await setModelProviderModels(deps.db, tenant.id, provider, result.models);
    return c.json({
      object: 'model_provider_test' as const,
      provider,
      ok: result.ok,
      latency_ms: Date.now() - started,
      models: result.ok ? result.models : [],
      ...(result.ok
        ? {}
        : {
            error: { code: result.code, message: result.message, ...(result.status ? { status: result.status } : {}) },
          }),
    });
  });
  return app;
}

/** The transport's failures (egress refusals, timeouts, refused connections) as a failed test, not a 5xx. */
async function testConnection(
  call: () => Promise<ProviderModelList>,
): Promise<ProviderModelList | { ok: false; code: string; message: string; status?: number }> {
  try {
    return await call();
  } catch (error) {
    if (isEgressError(error)) {
      // The guard's own words speak of tools; say it of the base URL.
      const message =
        error.code === 'egress_forbidden_address'
          ? 'The base URL points at a private or internal address, which the platform does not allow (the operator can allowlist it)'
          : `The base URL was refused: ${error.message}`;
      return { ok: false, code: error.code, message };
    }
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      ok: false,
      code: 'model_connection_failed',
      message: timedOut
        ? `The provider did not answer within ${TEST_TIMEOUT_MS / 1000} s`
        : `The provider could not be reached: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
    };
  }
}
