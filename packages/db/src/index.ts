export { AUTH_CHANGES_CHANNEL, type AuthChangeHandlers, listenForAuthChanges } from './auth-changes.ts';
export {
  type Database,
  type DatabaseOptions,
  type Db,
  type ListenHandlers,
  migrationsFolder,
  openDatabase,
} from './database.ts';
export { finishedRuns, listenForFinishedRuns, RUN_FINISHED_CHANNEL } from './finished-runs.ts';
export { isId, newId } from './ids.ts';
export * from './repositories/account-tokens.ts';
export * from './repositories/agent-tests.ts';
export * from './repositories/agents.ts';
export * from './repositories/audit.ts';
export * from './repositories/conversations.ts';
export * from './repositories/handoff.ts';
export * from './repositories/idempotency.ts';
export * from './repositories/invitations.ts';
export * from './repositories/knowledge-bases.ts';
export * from './repositories/knowledge-documents.ts';
export * from './repositories/mcp-checks.ts';
export * from './repositories/members.ts';
export * from './repositories/model-providers.ts';
export * from './repositories/run-attempts.ts';
export * from './repositories/run-creation.ts';
export { staleAttempt } from './repositories/run-fence.ts';
export * from './repositories/run-finish.ts';
export * from './repositories/run-tool-calls.ts';
export * from './repositories/runs.ts';
export * from './repositories/secrets.ts';
export * from './repositories/seeded-conversations.ts';
export * from './repositories/tenants.ts';
export * from './repositories/usage.ts';
export * from './repositories/user-sessions.ts';
export * from './repositories/users.ts';
export * from './repositories/waiting-runs.ts';
export * from './repositories/webhook-deliveries.ts';
export { APP_ROLE } from './row-level-security.ts';
export * from './schema.ts';
export { type CommitAhead, type Tx, withSystemScope, withTenantScope } from './tenant-scope.ts';
