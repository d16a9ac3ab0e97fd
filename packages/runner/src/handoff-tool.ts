import type { AgentRunResult, ToolExecutor } from '@agentry/agent';
import type { CompiledAgent } from '@agentry/config';
import type { Run, StoredMessage } from '@agentry/db';
import { type Message, textOf } from '@agentry/llm';
import {
  type HandoffOutcome,
  type HandoffSettings,
  handoffSettings,
  requestHandoff,
  type UnavailableReason,
} from '@agentry/run-service';
import type { ProcessorContext } from './processor-context.ts';

/** The built-in tool the model calls to pass the conversation to a person (issue 21). */
export const HANDOFF_TOOL = 'handoff_to_human';

const MAX_REASON = 500;
const MAX_SUMMARY = 4000;

/** What the handoff tool answers the model (and the runner reads to tell the visitor). */
interface HandoffToolOutput {
  status: HandoffOutcome['status'];
  /** What the visitor was told, word for word (the run ends with it). */
  told_visitor: string;
  reason?: string;
  instruction: string;
}

function handoffOutput(
  outcome: Pick<HandoffOutcome, 'status'> & { reason?: UnavailableReason },
  settings: HandoffSettings,
): HandoffToolOutput {
  if (outcome.status !== 'unavailable' || !outcome.reason) {
    return {
      status: outcome.status,
      told_visitor: settings.waitingMessage,
      instruction: 'A person from the team takes the conversation over. Do not answer until it is given back to you.',
    };
  }
  return {
    status: 'unavailable',
    reason: outcome.reason,
    told_visitor: settings.unavailableMessage,
    instruction:
      settings.whenUnavailable === 'collect_contact'
        ? 'Nobody can take over now. Ask the visitor for their name and an email address or phone number, so the team can get back to them, and confirm you noted them.'
        : 'Nobody can take over now. Keep helping the visitor yourself.',
  };
}

/**
 * Asks for a person for the run's conversation (the model's tool, a flow's handoff step) and says
 * what to tell the visitor: the agent's waiting message, or its unavailable message when nobody is
 * available (outside business hours, no member available; the model keeps the conversation).
 *
 * @example
 * const { told } = await handOver(ctx, run, agent, { source: 'flow', reason: 'refund', summary: '…' });
 */
export async function handOver(
  ctx: ProcessorContext,
  run: Pick<Run, 'tenantId' | 'conversationId'>,
  agent: CompiledAgent,
  request: { source: 'model' | 'flow'; reason: string; summary: string; test?: boolean },
): Promise<HandoffToolOutput> {
  const settings = handoffSettings(agent.config.handoff);
  // A test conversation (issue 22) records the request in its transcript; it reaches nobody.
  if (request.test) return handoffOutput({ status: 'pending_human' }, settings);
  const outcome = await requestHandoff(
    { db: ctx.deps.db, events: ctx.deps.events },
    {
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      source: request.source,
      reason: request.reason.slice(0, MAX_REASON),
      summary: request.summary.slice(0, MAX_SUMMARY),
      actor: { type: request.source },
      checkAvailability: true,
    },
  );
  return handoffOutput(outcome, settings);
}

/**
 * The `handoff_to_human` tool of an agent with `handoff.enabled` (undefined otherwise). Its call
 * ends the run: the runner then tells the visitor what the output's `told_visitor` says.
 *
 * @example
 * const handoff = handoffExecutor(ctx, run, agent);
 */
export function handoffExecutor(
  ctx: ProcessorContext,
  run: Run,
  agent: CompiledAgent,
  options: { test?: boolean } = {},
): ToolExecutor | undefined {
  if (!agent.config.handoff?.enabled) return undefined;
  return {
    definitions: () => [
      {
        name: HANDOFF_TOOL,
        description:
          'Pass the conversation to a person from the team: when the visitor asks for a person, or you cannot help. A person then answers; you do not. `summary` is what the person reads first: what the visitor wants, what is known and what was done so far.',
        parameters: {
          type: 'object',
          properties: {
            reason: { type: 'string', description: 'Why a person should take over (one sentence).' },
            summary: { type: 'string', description: 'The conversation so far, for the person taking over.' },
          },
          required: ['reason', 'summary'],
          additionalProperties: false,
        },
      },
    ],
    async execute(call) {
      const args = (call.arguments ?? {}) as { reason?: unknown; summary?: unknown };
      const reason = typeof args.reason === 'string' && args.reason.trim() ? args.reason.trim() : 'Asked for a person';
      const summary = typeof args.summary === 'string' ? args.summary.trim() : '';
      try {
        const output = await handOver(ctx, run, agent, {
          source: 'model',
          reason,
          summary,
          test: options.test === true,
        });
        return { output, isError: false, endsRun: true };
      } catch (error) {
        ctx.log('warn', 'handoff failed', { runId: run.id, error: String(error) });
        return {
          output: { error: 'handoff_failed', message: 'The handoff could not be recorded; keep helping the visitor.' },
          isError: true,
          errorCode: 'handoff_failed',
        };
      }
    },
  };
}

/**
 * What to tell the visitor after the model's turn ended with a handoff call: the tool output's
 * `told_visitor`, or undefined when the turn did not end that way.
 */
export function handoffReply(result: AgentRunResult): string | undefined {
  const last = result.messages.at(-1);
  if (result.status !== 'completed' || last?.role !== 'tool') return undefined;
  for (const part of last.content) {
    if (part.type !== 'tool_result' || part.toolName !== HANDOFF_TOOL || part.isError) continue;
    const told = (part.output as Partial<HandoffToolOutput> | null)?.told_visitor;
    if (typeof told === 'string' && told) return told;
  }
  return undefined;
}

/**
 * A stored message as the model reads it. People's messages (issue 21) are the assistant's side
 * of the conversation, marked so the model knows a person wrote them: a member's reply with their
 * name, a note for the model (written when people gave the conversation back) as such.
 *
 * @example
 * const history = stored.map(modelMessage);
 */
export function modelMessage(message: Pick<StoredMessage, 'role' | 'content' | 'author'>): Message {
  if (!message.author) return { role: message.role, content: message.content };
  const text = textOf(message);
  const written =
    message.author.type === 'human'
      ? `[${message.author.name}, a person from the team, wrote to the visitor:] ${text}`
      : `[Note to you from ${message.author.name} of the team, handing the conversation back to you; the visitor did not see it:] ${text}`;
  return { role: 'assistant', content: [{ type: 'text', text: written }] };
}
