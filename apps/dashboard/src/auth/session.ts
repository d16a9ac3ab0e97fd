import { ProblemError } from '@agentry/contract';
import type {
  AcceptInvitationBody,
  ConfirmEmailBody,
  ConfirmPasswordResetBody,
  LoginBody,
  RequestPasswordResetBody,
  Session,
} from '@agentry/contract/schemas';
import { apiFetch } from '../api/client.ts';
import { authState, KEY_STORAGE, pickTenant, readSecretKey, setAuth as set, signedIn } from './session-store.ts';

export {
  type AuthState,
  authHeaders,
  authState,
  currentRole,
  selectTenant,
  sessionExpired,
  useAuth,
} from './session-store.ts';

/**
 * The sign-in actions: each asks the API and records the outcome in the session store
 * (`session-store.ts`, which also says how requests authenticate).
 */

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
  const state = authState();
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
  const state = authState();
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

/** Ends the session on the server (cookie) or forgets the key; the UI goes back to the login. */
export async function logout(): Promise<void> {
  const wasUser = authState().status === 'user';
  sessionStorage.removeItem(KEY_STORAGE);
  try {
    if (wasUser) await apiFetch('POST', '/v1/auth/logout');
  } finally {
    set({ status: 'signed-out' });
  }
}
