import { NewApiKeyBody } from '@agentry/contract/schemas';
import { type ApiKeyRecord, createApiKey, getAgent, getApiKey, isId, listApiKeys, revokeApiKey } from '@agentry/db';
import { errors } from '@agentry/errors';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import { type AuthVariables, generateKey, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, EXAMPLE_AGENT_ID, ref } from '../http/openapi.ts';
import { hasScope, isScope, uncoveredScopes, validOriginPattern } from '../http/scopes.ts';

/**
 * Whether the caller sees publishable keys' values: owners and editors (who embed the widget), and
 * secret keys that may change agents. Viewers only read; secret keys' values are never stored.
 */
function seesPublishableKeys(principal: Principal): boolean {
  return hasScope(principal.scopes, 'agents:write');
}

/**
 * A key as the API shows it. `showValue`: a publishable key carries `key` (null when it was made
 * before keys were kept, migration 0020); a secret key never does.
 */
function keyView(key: ApiKeyRecord, showValue = false) {
  return {
    id: key.id,
    object: 'api_key',
    kind: key.kind,
    name: key.name,
    prefix: key.prefix,
    scopes: key.kind === 'secret' ? key.scopes : [],
    agents: key.allowedAgents ?? [],
    allowed_origins: key.allowedOrigins ?? [],
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    ...(showValue && key.kind === 'publishable' ? { key: key.publishableKey } : {}),
  };
}

function invalid(path: string, code: string, message: string) {
  return errors.validation('The key request is not valid', [{ path, code, message }]);
}

/**
 * Refuses (403, audited as `api_key.<action>_refused`) a caller whose scopes do not cover the
 * target key's: otherwise a narrow key could revoke the tenant's root key and lock its owner out.
 * Publishable keys carry no scopes, so any caller allowed on the route covers them.
 */
async function assertMayChange(
  deps: ApiDeps,
  c: Context<{ Variables: AuthVariables }>,
  target: ApiKeyRecord,
  action: 'revoke',
): Promise<void> {
  const missing = uncoveredScopes(c.var.principal.scopes, target.scopes);
  if (missing.length === 0) return;
  await audit(
    deps.db,
    c,
    `api_key.${action}_refused`,
    { type: 'api_key', id: target.id },
    { prefix: target.prefix, missing },
  );
  throw errors.forbidden(`This caller cannot ${action} a key with \`${missing[0]}\`, which it does not have`);
}

/** Tenant API keys: secret (server-side, scoped) and publishable (browser chat, per agent and origin). */
export function apiKeyRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/',
    doc({
      operationId: 'listApiKeys',
      tag: 'API keys',
      summary: 'The tenant’s keys, revoked ones included',
      description:
        'Secret keys by prefix only (their value is shown once, at creation). Publishable keys are public (every page that embeds the widget shows them): owners, editors and keys with `agents:write` see their `key` again; it is null for keys made before keys were kept.',
      auth: 'tenant',
      responses: { 200: { description: 'All keys (one page)', schema: ref('ApiKeyList') } },
    }),
  );
  app.get('/', async (c) => {
    const keys = await listApiKeys(deps.db, c.var.tenant.id);
    const show = seesPublishableKeys(c.var.principal);
    return c.json({ object: 'list', data: keys.map((k) => keyView(k, show)), next_cursor: null });
  });

  app.post(
    '/',
    doc({
      operationId: 'createApiKey',
      tag: 'API keys',
      summary: 'Create a secret key (scoped) or a publishable key (agents + allowed origins)',
      description:
        'A key can grant only scopes it has itself. A secret key is in this answer only; a publishable key is public, and owners and editors see it again in the list.',
      auth: 'tenant',
      body: {
        schema: NewApiKeyBody,
        example: {
          kind: 'publishable',
          name: 'Shop widget',
          agents: [EXAMPLE_AGENT_ID],
          allowed_origins: ['https://shop.example.com'],
        },
      },
      responses: { 201: { description: 'The key with its value', schema: ref('ApiKeyCreated') } },
    }),
  );
  app.post('/', async (c) => {
    const body = await readJson(c, NewApiKeyBody);
    const tenantId = c.var.tenant.id;
    if (body.kind === 'secret') {
      if (body.agents || body.allowed_origins) {
        throw invalid(
          body.agents ? '/agents' : '/allowed_origins',
          'not_for_secret_keys',
          'Only publishable keys are bound to agents and origins',
        );
      }
      const scopes = body.scopes ?? ['*'];
      const unknown = scopes.find((s) => !isScope(s));
      if (unknown)
        throw invalid(
          '/scopes',
          'unknown_scope',
          `Unknown scope \`${unknown}\`; scopes are * or <resource>:read|write`,
        );
      // A key can only hand out what it has itself.
      const wider = uncoveredScopes(c.var.principal.scopes, scopes);
      if (wider.length > 0) {
        await audit(
          deps.db,
          c,
          'api_key.create_refused',
          { type: 'tenant', id: tenantId },
          { kind: 'secret', scopes, missing: wider },
        );
        throw errors.forbidden(`This key cannot grant \`${wider[0]}\`, which it does not have`);
      }
      const key = generateKey('secret');
      const record = await createApiKey(deps.db, {
        tenantId,
        kind: 'secret',
        ...(body.name ? { name: body.name } : {}),
        prefix: key.prefix,
        hash: key.hash,
        scopes,
      });
      await audit(
        deps.db,
        c,
        'api_key.created',
        { type: 'api_key', id: record.id },
        { kind: 'secret', prefix: record.prefix, scopes },
      );
      return c.json({ ...keyView(record), key: key.key, note: 'Shown once: store it now.' }, 201);
    }
    if (body.scopes)
      throw invalid('/scopes', 'not_for_publishable_keys', 'Publishable keys can only chat; they take no scopes');
    if (!body.agents) throw invalid('/agents', 'required', 'A publishable key names the agents it may chat with');
    if (!body.allowed_origins)
      throw invalid('/allowed_origins', 'required', 'A publishable key names the page origins it may be used from');
    const badOrigin = body.allowed_origins.findIndex((o) => !validOriginPattern(o));
    if (badOrigin >= 0) {
      throw invalid(
        `/allowed_origins/${badOrigin}`,
        'invalid_origin',
        'Use scheme://host[:port], optionally with *. before the host (no path)',
      );
    }
    for (const [i, agentId] of body.agents.entries()) {
      if (!isId(agentId) || !(await getAgent(deps.db, tenantId, agentId)))
        throw invalid(`/agents/${i}`, 'agent_not_found', `No agent with id ${agentId}`);
    }
    const key = generateKey('publishable');
    const record = await createApiKey(deps.db, {
      tenantId,
      kind: 'publishable',
      ...(body.name ? { name: body.name } : {}),
      prefix: key.prefix,
      hash: key.hash,
      publishableKey: key.key,
      scopes: [],
      allowedAgents: body.agents,
      allowedOrigins: body.allowed_origins,
    });
    await audit(
      deps.db,
      c,
      'api_key.created',
      { type: 'api_key', id: record.id },
      {
        kind: 'publishable',
        prefix: record.prefix,
        agents: body.agents,
        allowed_origins: body.allowed_origins,
      },
    );
    return c.json({ ...keyView(record), key: key.key }, 201);
  });

  app.delete(
    '/:id',
    doc({
      operationId: 'revokeApiKey',
      tag: 'API keys',
      summary: 'Revoke a key (at once, for every process)',
      auth: 'tenant',
      path: { id: { description: 'The key id', resource: 'api_key' } },
      description:
        'Only a key whose scopes cover the revoked key’s may revoke it: the tenant’s full-scope (`*`) key only by a full-scope key or an owner’s dashboard session. A refusal (403 `forbidden`) is in the audit log too.',
      responses: { 200: { description: 'The revoked key', schema: ref('ApiKey') } },
      errors: ['api_key_not_found'],
    }),
  );
  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    const target = isId(id) ? await getApiKey(deps.db, c.var.tenant.id, id) : undefined;
    if (!target) throw errors.notFound('api_key', id);
    await assertMayChange(deps, c, target, 'revoke');
    // Scopes never change after creation, so the check above still holds for the update.
    const revoked = await revokeApiKey(deps.db, c.var.tenant.id, id);
    if (!revoked) throw errors.notFound('api_key', id);
    // This process stops accepting it now; the others when the change's notification reaches them.
    deps.apiKeyCache?.invalidateTenant(c.var.tenant.id);
    await audit(deps.db, c, 'api_key.revoked', { type: 'api_key', id: revoked.id }, { prefix: revoked.prefix });
    return c.json(keyView(revoked));
  });
  return app;
}
