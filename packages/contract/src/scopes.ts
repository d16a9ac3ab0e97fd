/** The resources a secret key's scopes name; a scope is `<resource>:read` or `<resource>:write`. */
export const SCOPE_RESOURCES = [
  'agents',
  'conversations',
  'runs',
  'secrets',
  'api-keys',
  'usage',
  'audit-events',
  'chat',
  'models',
  'model-providers',
  'members',
  'invitations',
  'webhook-deliveries',
  'knowledge',
  'inbox',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];

/** A key scope: `*` (every resource) or `<resource>:read` / `<resource>:write`. */
export type Scope = '*' | `${ScopeResource}:${'read' | 'write'}`;

/** Every scope a secret key may hold, `*` first. */
export const ALL_SCOPES: readonly Scope[] = [
  '*',
  ...SCOPE_RESOURCES.flatMap((r) => [`${r}:read` as const, `${r}:write` as const]),
];

/** Whether a string is a scope the API knows. */
export function isScope(scope: string): scope is Scope {
  return (ALL_SCOPES as readonly string[]).includes(scope);
}
