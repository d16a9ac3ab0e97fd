import { SCOPE_RESOURCES } from '@agentry/contract';

export { ALL_SCOPES, isScope, SCOPE_RESOURCES } from '@agentry/contract';

/** Path segments that belong to another resource's scope: importing tools is editing agents; the demo agent's contacts are the agents'. */
const SCOPE_ALIASES: Record<string, string> = { tools: 'agents', demo: 'agents', 'knowledge-bases': 'knowledge' };

/** Writes by method that only read: searching a knowledge base (a POST for its body). */
const READING_POSTS = /^\/v1\/knowledge-bases\/[^/]+\/search$/;

/**
 * The scope a request needs: its first path segment after `/v1/` and read for GET/HEAD, write
 * otherwise (`POST /v1/chat/completions` → `chat:write`); `/v1/tools/…` is the agents' scope.
 *
 * @example
 * scopeFor('GET', '/v1/agents/123/versions'); // 'agents:read'
 * scopeFor('POST', '/v1/tools/import'); // 'agents:write'
 */
export function scopeFor(method: string, path: string): string {
  const segment = path.split('/')[2] ?? '';
  const resource = Object.hasOwn(SCOPE_ALIASES, segment) ? SCOPE_ALIASES[segment]! : segment;
  const reads = method === 'GET' || method === 'HEAD' || (method === 'POST' && READING_POSTS.test(path));
  return `${resource}:${reads ? 'read' : 'write'}`;
}

export function hasScope(granted: readonly string[], needed: string): boolean {
  return granted.includes('*') || granted.includes(needed);
}

/**
 * The scopes of `wanted` that `granted` does not cover; `*` (every resource, the tenant's root
 * key) is covered only by `*` itself. Creating, revoking or changing a key needs this empty, so a
 * key can neither hand out nor take away more than it has.
 *
 * @example
 * uncoveredScopes(['api-keys:write'], ['*']); // ['*']
 * uncoveredScopes(['*'], ['agents:read']); // []
 */
export function uncoveredScopes(granted: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((s) => (s === '*' ? !granted.includes('*') : !hasScope(granted, s)));
}

/** A dashboard user's role in a tenant. */
export type Role = 'owner' | 'editor' | 'viewer';

const EDITOR_WRITES = [
  'agents',
  'conversations',
  'runs',
  'chat',
  'models',
  'model-providers',
  'secrets',
  'webhook-deliveries',
  'knowledge',
];

/**
 * What a role may do, as key scopes: owners everything; editors change agents, conversations,
 * runs, chat, models, model providers and secrets, retry webhook deliveries, and read the rest; viewers only read.
 *
 * @example
 * hasScope(scopesForRole('editor'), 'members:write'); // false
 */
export function scopesForRole(role: Role): string[] {
  if (role === 'owner') return ['*'];
  const reads = SCOPE_RESOURCES.map((r) => `${r}:read`);
  return role === 'editor' ? [...reads, ...EDITOR_WRITES.map((r) => `${r}:write`)] : reads;
}

/**
 * Whether a user with `role` may make this request: the role's scopes, plus leaving a tenant
 * (`DELETE /v1/members/<own id>`), which every member may do.
 */
export function roleMayCall(role: Role, method: string, path: string, userId: string): boolean {
  if (hasScope(scopesForRole(role), scopeFor(method, path))) return true;
  return method === 'DELETE' && path === `/v1/members/${userId}`;
}

/** What a publishable (browser) key may do: chat with its agents, nothing else. */
const PUBLISHABLE_ROUTES: Array<[string, RegExp]> = [
  ['POST', /^\/v1\/conversations$/],
  ['GET', /^\/v1\/conversations\/[^/]+$/],
  ['POST', /^\/v1\/conversations\/[^/]+\/messages$/],
  ['GET', /^\/v1\/runs\/[^/]+$/],
  ['GET', /^\/v1\/runs\/[^/]+\/events$/],
  ['POST', /^\/v1\/runs\/[^/]+\/cancel$/],
  ['POST', /^\/v1\/runs\/[^/]+\/tool-results$/],
  ['GET', /^\/v1\/widget\/bootstrap$/],
];

export function publishableMayCall(method: string, path: string): boolean {
  return PUBLISHABLE_ROUTES.some(([m, re]) => m === method && re.test(path));
}

/**
 * Whether a page origin matches an allowed origin: exact (`https://shop.example.com`) or a
 * subdomain wildcard (`https://*.example.com` matches `https://a.example.com`, not the apex).
 */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return false;
  }
  return allowed.some((pattern) => {
    const wildcard = pattern.includes('://*.');
    const url = new URL(wildcard ? pattern.replace('://*.', '://') : pattern);
    if (url.protocol !== page.protocol || url.port !== page.port) return false;
    return wildcard ? page.hostname.endsWith(`.${url.hostname}`) : page.hostname === url.hostname;
  });
}

/** A valid allowed-origin pattern: scheme + host (+ port), optionally `*.` before the host; no path. */
export function validOriginPattern(pattern: string): boolean {
  if (!/^https?:\/\/(\*\.)?[a-z0-9.-]+(:\d+)?$/i.test(pattern)) return false;
  try {
    new URL(pattern.replace('://*.', '://'));
    return true;
  } catch {
    return false;
  }
}
