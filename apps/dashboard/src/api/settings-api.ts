import type { Role } from '@agentry/contract';
import type {
  ApiKey,
  ApiKeyCreated,
  ApiKeyList,
  ChangeRoleBody,
  InvitationCreated,
  InvitationList,
  Member,
  MemberList,
  ModelProvider,
  ModelProviderKind,
  ModelProviderList,
  ModelProviderPut,
  ModelProviderTest,
  NewApiKeyBody,
  NewInvitationBody,
  PutModelProviderBody,
  PutSecretBody,
  SecretList,
  SecretPut,
} from '@agentry/contract/schemas';
import { apiFetch } from './client.ts';

const enc = encodeURIComponent;

/** The resources a secret key's scopes name, and the roles of members: the API's own lists, from the contract. */
export { ROLES, SCOPE_RESOURCES } from '@agentry/contract';

export const keysApi = {
  list: async () => (await apiFetch<ApiKeyList>('GET', '/v1/api-keys')).data,
  create: (body: NewApiKeyBody) => apiFetch<ApiKeyCreated>('POST', '/v1/api-keys', body),
  revoke: (id: string) => apiFetch<ApiKey>('DELETE', `/v1/api-keys/${enc(id)}`),
};

export const secretsApi = {
  list: async () => (await apiFetch<SecretList>('GET', '/v1/secrets')).data,
  put: (name: string, value: string) =>
    apiFetch<SecretPut>('PUT', `/v1/secrets/${enc(name)}`, { value } satisfies PutSecretBody),
  remove: (name: string) => apiFetch<void>('DELETE', `/v1/secrets/${enc(name)}`),
};

export const membersApi = {
  list: async () => (await apiFetch<MemberList>('GET', '/v1/members?limit=100')).data,
  setRole: (userId: string, role: Role) =>
    apiFetch<Member>('PATCH', `/v1/members/${enc(userId)}`, { role } satisfies ChangeRoleBody),
  remove: (userId: string) => apiFetch<void>('DELETE', `/v1/members/${enc(userId)}`),
  invitations: async () => (await apiFetch<InvitationList>('GET', '/v1/invitations')).data,
  invite: (email: string, role: Role) =>
    apiFetch<InvitationCreated>('POST', '/v1/invitations', { email: email.trim(), role } satisfies NewInvitationBody),
  revokeInvitation: (id: string) => apiFetch<void>('DELETE', `/v1/invitations/${enc(id)}`),
};

/** The tenant's own model providers: keys are write-only (`api_key_set` says one is stored). */
export const modelProvidersApi = {
  list: async (): Promise<ModelProvider[]> => (await apiFetch<ModelProviderList>('GET', '/v1/model-providers')).data,
  put: (provider: ModelProviderKind, body: PutModelProviderBody) =>
    apiFetch<ModelProviderPut>('PUT', `/v1/model-providers/${enc(provider)}`, body),
  remove: (provider: ModelProviderKind) => apiFetch<void>('DELETE', `/v1/model-providers/${enc(provider)}`),
  test: (provider: ModelProviderKind) =>
    apiFetch<ModelProviderTest>('POST', `/v1/model-providers/${enc(provider)}/test`),
};
