import type { Role } from '../auth/session.ts';
import { apiFetch } from './client.ts';

const enc = encodeURIComponent;

/** `GET /v1/api-keys` rows (apps/api/src/routes/api-keys.ts). */
export interface ApiKey {
  id: string;
  kind: 'secret' | 'publishable';
  name: string | null;
  prefix: string;
  scopes: string[];
  agents: string[];
  allowed_origins: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type NewApiKey =
  | { kind: 'secret'; name?: string; scopes: string[] }
  | { kind: 'publishable'; name?: string; agents: string[]; allowed_origins: string[] };

export interface SecretInfo {
  name: string;
  created_at: string;
  updated_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  name: string | null;
  /** false: joined through a link shown to an inviter and never confirmed the address. */
  email_verified: boolean;
  role: Role;
  created_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  /** `email`: the link went to the invitee by mail; `link`: no mail on this server, shown once below. */
  delivery: 'email' | 'link';
  /** Only with `delivery: link`, in the answer to the POST that created it. */
  token?: string;
  accept_url?: string;
}

interface List<T> {
  data: T[];
  next_cursor: string | null;
}

/** The resources a secret key's scopes name: the API's own list, from the contract. */
export { SCOPE_RESOURCES } from '@agentry/contract';

export const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];

export const keysApi = {
  list: async () => (await apiFetch<List<ApiKey>>('GET', '/v1/api-keys')).data,
  create: (body: NewApiKey) => apiFetch<ApiKey & { key: string }>('POST', '/v1/api-keys', body),
  revoke: (id: string) => apiFetch<ApiKey>('DELETE', `/v1/api-keys/${enc(id)}`),
};

export const secretsApi = {
  list: async () => (await apiFetch<List<SecretInfo>>('GET', '/v1/secrets')).data,
  put: (name: string, value: string) =>
    apiFetch<{ name: string; created: boolean }>('PUT', `/v1/secrets/${enc(name)}`, { value }),
  remove: (name: string) => apiFetch<void>('DELETE', `/v1/secrets/${enc(name)}`),
};

export const membersApi = {
  list: async () => (await apiFetch<List<Member>>('GET', '/v1/members?limit=100')).data,
  setRole: (userId: string, role: Role) => apiFetch<Member>('PATCH', `/v1/members/${enc(userId)}`, { role }),
  remove: (userId: string) => apiFetch<void>('DELETE', `/v1/members/${enc(userId)}`),
  invitations: async () => (await apiFetch<List<Invitation>>('GET', '/v1/invitations')).data,
  invite: (email: string, role: Role) => apiFetch<Invitation>('POST', '/v1/invitations', { email: email.trim(), role }),
  revokeInvitation: (id: string) => apiFetch<void>('DELETE', `/v1/invitations/${enc(id)}`),
};
