import type { Role } from '@agentry/contract';
import { ProblemError } from '@agentry/contract';
import type {
  AcceptInvitationBody,
  ConfirmEmailBody,
  ConfirmPasswordResetBody,
  LoginBody,
  Membership,
  RequestPasswordResetBody,
  Session,
} from '@agentry/contract/schemas';
import { useSyncExternalStore } from 'react';
import { apiFetch } from '../api/client.ts';

/**
 * The only place that knows how the dashboard authenticates.
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

const KEY_STORAGE = 'agentry.secretKey';
const TENANT_STORAGE = 'agentry.tenant';
const UNSAFE = /^(POST|PUT|PATCH|DELETE)$/i;

let state: AuthState = { status: 'checking' };
const listeners = new Set<() => void>();

function set(next: AuthState): void {
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

function readSecretKey(): string | undefined {
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

/** The stored tenant when the user is still a member of it, else their first membership. */
function pickTenant(session: Session, preferred = localStorage.getItem(TENANT_STORAGE)): Membership | undefined {
  return session.memberships.find((m) => m.tenant_id === preferred) ?? session.memberships[0];
}

function signedIn(session: Session, tenant = pickTenant(session)): void {
  if (tenant) localStorage.setItem(TENANT_STORAGE, tenant.tenant_id);
  set({ status: 'user', session, tenant });
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

/** On start-up: the tab's key, else the session cookie if it is still valid. */
export async function restoreSession(): Promise<void> {
  if (readSecretKey()) {
    set({ status: 'key' });
    return;
  }
  try {
    signedIn(await apiFetch<Session>('GET', '/v1/auth/session'));
  } catch {
    set({ status: 'signed-out' });
  }
}

/** Email + password; throws the API's problem (401 invalid_credentials, 429 login_throttled). */
export async function loginWithPassword(email: string, password: string): Promise<void> {
  signedIn(await apiFetch<Session>('POST', '/v1/auth/login', { email: email.trim(), password } satisfies LoginBody));
}

/**
 * Accepts an invitation (a new user sets a password; an existing one gives theirs) and signs in,
 * with the tenant of the invitation selected when it can be told apart.
 */
export async function acceptInvitation(token: string, password: string, name?: string): Promise<void> {
  const before = state.status === 'user' ? new Set(state.session.memberships.map((m) => m.tenant_id)) : new Set();
  const session = await apiFetch<Session>('POST', '/v1/auth/accept-invitation', {
    token,
    password,
    ...(name?.trim() ? { name: name.trim() } : {}),
  } satisfies AcceptInvitationBody);
  signedIn(session, session.memberships.find((m) => !before.has(m.tenant_id)) ?? pickTenant(session));
}

/** Asks for a reset link by mail; the API answers alike whether or not the email has an account. */
export async function requestPasswordReset(email: string): Promise<void> {
  await apiFetch('POST', '/v1/auth/password-reset', { email: email.trim() } satisfies RequestPasswordResetBody);
}

/** Sets a new password with the mailed token; the API ends every other session and signs this one in. */
export async function resetPassword(token: string, password: string): Promise<void> {
  signedIn(
    await apiFetch<Session>('POST', '/v1/auth/password-reset/confirm', {
      token,
      password,
    } satisfies ConfirmPasswordResetBody),
  );
}

/** Confirms the address with the mailed token; the session (if any) then shows it verified. */
export async function confirmEmail(token: string): Promise<void> {
  await apiFetch('POST', '/v1/auth/confirm-email', { token } satisfies ConfirmEmailBody);
  if (state.status === 'user') {
    set({ ...state, session: { ...state.session, user: { ...state.session.user, email_verified: true } } });
  }
}

/** Mails the signed-in user a link that confirms their address. */
export async function requestEmailConfirmation(): Promise<void> {
  await apiFetch('POST', '/v1/auth/email-confirmation');
}

/**
 * Developer sign-in with a tenant secret key, checked with one authenticated call before the UI
 * lets them in; throws the API's problem (401 for a wrong or revoked key).
 */
export async function signInWithKey(key: string): Promise<void> {
  sessionStorage.setItem(KEY_STORAGE, key.trim());
  try {
    await apiFetch('GET', '/v1/agents?limit=1');
  } catch (error) {
    // Only a refusal of the key keeps the user out; a missing route or a hiccup does not.
    if (error instanceof ProblemError && error.status === 401) {
      sessionStorage.removeItem(KEY_STORAGE);
      throw error;
    }
  }
  set({ status: 'key' });
}

/** A tenant secret key as the API issues it: `sk_` and base64url. */
export function looksLikeSecretKey(value: string): boolean {
  return /^sk_[A-Za-z0-9_-]{8,}$/.test(value.trim());
}

export function selectTenant(tenantId: string): void {
  if (state.status !== 'user') return;
  const tenant = state.session.memberships.find((m) => m.tenant_id === tenantId);
  if (tenant) signedIn(state.session, tenant);
}

/** Ends the session on the server (cookie) or forgets the key; the UI goes back to the login. */
export async function logout(): Promise<void> {
  const wasUser = state.status === 'user';
  sessionStorage.removeItem(KEY_STORAGE);
  try {
    if (wasUser) await apiFetch('POST', '/v1/auth/logout');
  } finally {
    set({ status: 'signed-out' });
  }
}

/** The API said 401 on a tenant call: the session expired or the key was revoked. */
export function sessionExpired(): void {
  sessionStorage.removeItem(KEY_STORAGE);
  if (state.status !== 'signed-out') set({ status: 'signed-out' });
}

/** The signed-in user's role in the current tenant; undefined for key sign-ins (the key's scopes decide). */
export function currentRole(auth: AuthState = state): Role | undefined {
  return auth.status === 'user' ? auth.tenant?.role : undefined;
}
