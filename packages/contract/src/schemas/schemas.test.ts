import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiSchemas, NewApiKeyBody, NewMessageBody, ToolResultsBody, ToolTestBody } from './index.ts';

describe('the API schemas', () => {
  it('register the response shapes under their component names, in the order of the OpenAPI document', () => {
    const { schemas } = z.toJSONSchema(apiSchemas, { uri: (id) => `#/components/schemas/${id}` });
    // The order is the exports' order in index.ts (modules register as they load).
    expect(Object.keys(schemas)).toEqual([
      ...['FieldIssue', 'Problem', 'OpenAIError'],
      ...['Agent', 'AgentVersion', 'AgentVersionDetail', 'AgentCreated', 'AgentList', 'AgentVersionList'],
      ...['AgentSummary', 'AgentPrompt', 'AgentDiff', 'McpCheck', 'ToolTestResult'],
      'FlowTriggerTest',
      // Messages and runs carry citations: the knowledge shapes load with them.
      ...['KnowledgeBase', 'KnowledgeBaseList', 'KnowledgeDocument', 'KnowledgeDocumentList', 'KnowledgeChunk'],
      ...['KnowledgeSearchResult', 'KnowledgeChunkList', 'Citation'],
      ...['AgentTest', 'AgentTestList', 'AgentTestsExport', 'TestCaseResult', 'TestRun', 'TestRunList', 'TestGate'],
      ...['Message', 'Conversation', 'HandoffState', 'ConversationDetail', 'ConversationList'],
      ...['InboxItem', 'InboxList', 'HeldMessage', 'HandoffResult', 'ConversationEvent', 'ConversationEventList'],
      ...['MemberAvailability', 'Availability', 'BusinessHours', 'Run'],
      ...['Secret', 'SecretList', 'SecretPut'],
      ...['ModelProvider', 'ModelProviderList', 'ModelProviderPut', 'ModelProviderTest'],
      ...['ApiKey', 'ApiKeyCreated', 'ApiKeyList', 'Tenant', 'TenantCreated'],
      ...['Usage', 'AuditEvent', 'AuditEventList', 'WidgetBootstrap', 'ChatCompletion', 'ModelList'],
      ...['Health', 'Readiness', 'Session', 'Member', 'MemberList', 'Invitation', 'InvitationCreated'],
      ...['InvitationList', 'PasswordResetRequested', 'WebhookDelivery', 'WebhookDeliveryList', 'ToolImportResult'],
      ...['DemoContactBody', 'DemoContact', 'DemoContactSaved', 'DemoContactList'],
    ]);
  });

  it('refuse unknown fields in request bodies, and apply their defaults and trimming', () => {
    expect(NewMessageBody.safeParse({ content: 'Hi', extra: 1 }).success).toBe(false);
    expect(NewMessageBody.parse({ content: '  Hi  ' })).toEqual({ content: 'Hi' });
    expect(NewMessageBody.safeParse({ content: '   ' }).success).toBe(false);
    expect(ToolTestBody.parse({ config: {}, tool: 'lookup' })).toEqual({
      config: {},
      tool: 'lookup',
      arguments: {},
      send: false,
    });
    expect(ToolResultsBody.safeParse({ results: [] }).success).toBe(false);
    expect(NewApiKeyBody.safeParse({ kind: 'secret', scopes: ['*'] }).success).toBe(true);
  });
});
