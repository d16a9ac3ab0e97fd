import type { Agent, AgentVersion, Conversation, Run, StoredMessage } from '@agentry/db';
import type { ContentPart, SourceCitation, ToolCallPart, ToolResultPart } from '@agentry/llm';

/** Public JSON shapes (snake_case), kept in one place so every route answers alike. */
export function agentView(agent: Agent) {
  return {
    id: agent.id,
    object: 'agent',
    name: agent.name,
    published_version: agent.publishedVersion,
    latest_version: agent.latestVersion,
    require_passing_tests: agent.requirePassingTests,
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

export function versionView(version: Omit<AgentVersion, 'config'>, agent: Agent) {
  return {
    agent_id: version.agentId,
    object: 'agent_version',
    version: version.version,
    content_hash: version.contentHash,
    published: agent.publishedVersion === version.version,
    published_at: version.publishedAt?.toISOString() ?? null,
    created_at: version.createdAt.toISOString(),
  };
}

export function conversationView(conversation: Conversation) {
  return {
    id: conversation.id,
    object: 'conversation',
    agent_id: conversation.agentId,
    agent_version: conversation.agentVersion,
    context: conversation.context,
    mode: conversation.mode,
    created_at: conversation.createdAt.toISOString(),
    updated_at: conversation.updatedAt.toISOString(),
  };
}

/**
 * A conversation's handoff state for members (issue 21): who holds it, why it was handed over,
 * the model's summary, since when.
 */
export function handoffView(conversation: Conversation) {
  return {
    mode: conversation.mode,
    assigned_to: conversation.assignedTo,
    handoff: conversation.handoff
      ? {
          source: conversation.handoff.source,
          reason: conversation.handoff.reason,
          summary: conversation.handoff.summary,
          requested_at: conversation.handoff.requested_at,
        }
      : null,
    mode_changed_at: conversation.modeChangedAt?.toISOString() ?? null,
  };
}

/** The answer to a message people hold: stored for them, no run started (202). */
export function heldMessageView(conversation: Conversation, message: StoredMessage) {
  return {
    object: 'held_message',
    conversation_id: conversation.id,
    mode: conversation.mode,
    message: visitorMessageView(message),
  };
}

function partView(part: ContentPart) {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return { type: 'reasoning', text: part.text };
    case 'tool_call':
      return { type: 'tool_call', id: part.id, name: part.name, arguments: part.arguments };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_call_id: part.toolCallId,
        name: part.toolName,
        output: part.output,
        is_error: part.isError ?? false,
      };
  }
}

/** The knowledge sources an answer cites (stored on its text parts by the runner). */
export function citationsOf(message: Pick<StoredMessage, 'content'>): SourceCitation[] {
  return message.content.flatMap((p) => (p.type === 'text' && p.citations ? p.citations.map(citationView) : []));
}

/** Field by field: what was stored is never passed on wholesale. */
function citationView(c: SourceCitation): SourceCitation {
  return {
    marker: c.marker,
    document_id: c.document_id,
    knowledge_base_id: c.knowledge_base_id,
    title: c.title,
    url: c.url,
    page: c.page,
    heading_path: c.heading_path,
    snippet: c.snippet,
  };
}

export function messageView(message: StoredMessage) {
  return {
    id: message.id,
    object: 'message',
    seq: message.seq,
    role: message.role,
    run_id: message.runId,
    content: message.content.map(partView),
    citations: citationsOf(message),
    author: message.author
      ? { type: message.author.type, user_id: message.author.user_id, name: message.author.name }
      : null,
    created_at: message.createdAt.toISOString(),
  };
}

/** Which model answered the run's last model step (none for a flow's turn without a model). */
function modelMeta(run: Run) {
  const last = run.steps.findLast((step) => step.provider !== undefined);
  return {
    model: last?.provider ? { provider: last.provider, name: last.model ?? '' } : null,
    demo_model: last?.provider === 'demo',
  };
}

/** A run with its reply, the tool calls it made (with results) and meta, as seed 002 describes. */
export function runView(run: Run, messages: StoredMessage[]) {
  const produced = messages.filter((m) => m.role !== 'user');
  const results = new Map<string, ToolResultPart>();
  for (const m of produced) for (const p of m.content) if (p.type === 'tool_result') results.set(p.toolCallId, p);
  const calls = produced.flatMap((m) => m.content.filter((p): p is ToolCallPart => p.type === 'tool_call'));
  const lastAssistant = produced.findLast((m) => m.role === 'assistant');
  const reply = lastAssistant?.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') ?? null;
  const latencyMs = run.startedAt && run.finishedAt ? run.finishedAt.getTime() - run.createdAt.getTime() : null;
  return {
    id: run.id,
    object: 'run',
    conversation_id: run.conversationId,
    agent_id: run.agentId,
    agent_version: run.agentVersion,
    status: run.status,
    reply: run.status === 'completed' ? reply : null,
    citations: run.status === 'completed' && lastAssistant ? citationsOf(lastAssistant) : [],
    tool_calls: calls.map((call) => {
      const result = results.get(call.id);
      return {
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        output: result?.output ?? null,
        is_error: result?.isError ?? false,
      };
    }),
    meta: {
      input_tokens: run.usage.inputTokens,
      output_tokens: run.usage.outputTokens,
      cache_read_tokens: run.usage.cacheReadTokens,
      cache_write_tokens: run.usage.cacheWriteTokens,
      total_tokens: run.usage.inputTokens + run.usage.outputTokens,
      tool_call_count: run.toolCallCount,
      steps: run.steps.length,
      latency_ms: latencyMs,
      ...modelMeta(run),
    },
    steps: run.steps,
    error: run.error ?? null,
    trace_id: run.traceId,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
  };
}

/**
 * What a visitor (publishable key) may see of a run: the reply and status, never tool arguments,
 * tool outputs or step traces, which can hold data the agent fetched for its own use.
 */
export function visitorRunView(view: ReturnType<typeof runView>) {
  const { tool_calls: _calls, steps: _steps, ...rest } = view;
  return { ...rest, tool_calls: [], steps: [] };
}

/** A message as a visitor sees it: its text only (tool calls and results are left out). */
export function visitorMessageView(message: StoredMessage) {
  const view = messageView(message);
  // A person's reply shows their display name; their user id stays inside.
  const author = view.author ? { type: view.author.type, user_id: null, name: view.author.name } : null;
  return { ...view, author, content: view.content.filter((p) => p.type === 'text') };
}

/** Notes for the model (written when releasing a conversation) are never shown to the visitor. */
export function visibleToVisitor(message: StoredMessage): boolean {
  return message.author?.type !== 'note';
}

/** Run events a visitor's stream carries; tool traffic is shown only through `waiting` prompts. */
export const VISITOR_EVENT_TYPES = new Set([
  'run-status',
  'run-started',
  'step-started',
  'text-delta',
  'waiting',
  // A flow's question and its quick-reply buttons (issue 19).
  'flow',
  'run-finished',
  'run-failed',
  'run-cancelled',
  // The sources an answer cites (issue 20): what the visitor's answer shows, not tool traffic.
  'citations',
]);

/** The run view for whoever asked: visitors get {@link visitorRunView}. */
export function forPrincipal(principal: { kind: string }, view: ReturnType<typeof runView>) {
  return principal.kind === 'publishable' ? visitorRunView(view) : view;
}
