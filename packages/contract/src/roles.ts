/** The roles of a dashboard account in a tenant, from most to least powerful. */
export const ROLES = ['owner', 'editor', 'viewer'] as const;

/** owner: everything, members and keys included; editor: agents, conversations, secrets; viewer: reads. */
export type Role = (typeof ROLES)[number];
