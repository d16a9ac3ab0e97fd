import type { Role } from '@agentry/contract';
import type { Membership, Session } from '@agentry/contract/schemas';
import { useSyncExternalStore } from 'react';

/**
 * Who is signed in and the headers that says on each request: the store the API client reads (so it
 * imports nothing that calls the API) and the sign-in actions in `session.ts` write.
 *
 * - People sign in with email + password: the API sets an HttpOnly `agentry_session` cookie (same
 *   origin, so `fetch` sends it by itself). Every tenant call names the tenant in
 *   `X-Agentry-Tenant`; unsafe methods also carry the session's `X-CSRF-Token`, which lives only in
 *   memory and is fetched again from `GET /v1/auth/session` after a reload.
 * - Developers may use a tenant secret key instead (`Authorization: Bearer sk_…`), kept in
 *   sessionStorage so it is gone when the tab closes.
 */

/** Who is signed in: nobody (yet), a secret key, or a user with a session and a selected tenant. */
export type AuthState =
  | { status: 'checking' }
  | { status: 'signed-out' }
  | { status: 'key' }
  | { status: 'user'; session: Session; tenant: Membership | undefined };

export const KEY_STORAGE = 'agentry.secretKey';
const TENANT_STORAGE = 'agentry.tenant';
const UNSAFE = /^(POST|PUT|PATCH|DELETE)$/i;

let state: AuthState = { status: 'checking' };
const listeners = new Set<() => void>();

export function setAuth(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current sign-in, re-rendering on every change (login, tenant switch, logout, expiry). */
export function useAuth(): AuthState {
  return useSyncExternalStore(subscribe, () => state);
}

export function authState(): AuthState {
  return state;
}

export function readSecretKey(): string | undefined {
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

/** The stored tenant when the user is still a member of it, else their first membership. */
export function pickTenant(session: Session, preferred = localStorage.getItem(TENANT_STORAGE)): Membership | undefined {
  return session.memberships.find((m) => m.tenant_id === preferred) ?? session.memberships[0];
}

export function signedIn(session: Session, tenant = pickTenant(session)): void {
  if (tenant) localStorage.setItem(TENANT_STORAGE, tenant.tenant_id);
  setAuth({ status: 'user', session, tenant });
}

/**
 * Headers a request to `path` carries: the key, or the tenant (tenant routes) and the CSRF token
 * (unsafe methods) of the cookie session.
 */
export function authHeaders(method = 'GET', path = ''): Record<string, string> {
  // A key being checked at sign-in is used before the state says `key`.
  const key = state.status === 'user' ? undefined : readSecretKey();
  if (key) return { authorization: `Bearer ${key}` };
  if (state.status !== 'user') return {};
  const headers: Record<string, string> = {};
  if (state.tenant && !path.startsWith('/v1/auth/')) headers['x-agentry-tenant'] = state.tenant.tenant_id;
  if (UNSAFE.test(method)) headers['x-csrf-token'] = state.session.csrf_token;
  return headers;
}

export function selectTenant(tenantId: string): void {
  if (state.status !== 'user') return;
  const tenant = state.session.memberships.find((m) => m.tenant_id === tenantId);
  if (tenant) signedIn(state.session, tenant);
}

/** The API said 401 on a tenant call: the session expired or the key was revoked. */
export function sessionExpired(): void {
  sessionStorage.removeItem(KEY_STORAGE);
  if (state.status !== 'signed-out') setAuth({ status: 'signed-out' });
}

/** The signed-in user's role in the current tenant; undefined for key sign-ins (the key's scopes decide). */
export function currentRole(auth: AuthState = state): Role | undefined {
  return auth.status === 'user' ? auth.tenant?.role : undefined;
}
