/**
 * How a run starts: an agent version made ready (checked once per version, compiled once per
 * hash, secrets, model) and a message's run written, interrupting and queued — one module for
 * every entry point and for the worker's setup.
 */
export {
  type CompiledVersion,
  compileVersion,
  type PreparedVersion,
  prepareVersion,
  versionModel,
} from './agent-version.ts';
export { businessHoursIssues, isTimeZone, isWithinBusinessHours } from './business-hours.ts';
export type { CancelRunOptions } from './cancel-run.ts';
export { endUserSealContext, openEndUser, sealEndUser, type VerifiedEndUser } from './end-user.ts';
export {
  addNote,
  assignConversation,
  type HandoffDeps,
  type HandoffOutcome,
  type HandoffRequest,
  type HandoffSettings,
  handoffSettings,
  type Member,
  releaseConversation,
  requestHandoff,
  resolveConversation,
  sendHumanMessage,
  type UnavailableReason,
  unavailableReason,
} from './handoff.ts';
export {
  announce,
  conversationStreamKey,
  conversationSummary,
  type HandoffStreamEvent,
  inboxStreamKey,
  modeEvent,
  streamedMessage,
  visitorStreamEvent,
} from './handoff-events.ts';
export {
  type ConversationRunRequest,
  createRunService,
  type MessageRunRequest,
  type MessageRunResult,
  type RunService,
  type RunServiceDeps,
} from './run-service.ts';
export { type TenantEmbeddings, tenantEmbeddings } from './tenant-embeddings.ts';
export {
  loadTenantModelSettings,
  modelProviderContext,
  openProvider,
  tenantModelSettings,
} from './tenant-models.ts';
export {
  openSealedSecrets,
  openSecrets,
  type SealedSecret,
  secretContext,
  secretsNotConfigured,
} from './tenant-secrets.ts';
