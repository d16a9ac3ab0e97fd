/**
 * The suite's steady load: clients that each open conversations and send two messages in each,
 * rotating through the ways a real client talks to the API: waiting for the answer, streaming it,
 * streaming and reconnecting mid-way with `Last-Event-ID`, and a second message sent while the
 * first still runs (it queues behind it). Everything a client saw is recorded for the checks.
 *
 * @example
 * const load = startLoad({ api, agentId, clients: 4, untilMs: Date.now() + 60_000 });
 * const records = await load.done;
 */
import { randomBytes } from 'node:crypto';
import { type ApiClient, GaveUpError } from './http-client.ts';
import { readEvents, type StreamEvent } from './sse.ts';

export type SendMode = 'wait' | 'stream' | 'resume' | 'async';

/** One message the suite sent and what became of it as the client saw it. */
export interface SentMessage {
  tag: string;
  content: string;
  mode: SendMode;
  /** accepted: the API named its run; refused: a final 4xx; unknown: the client gave up. */
  outcome: 'accepted' | 'refused' | 'unknown';
  runId?: string;
  detail?: string;
  sentAt: number;
}

/** Everything one streamed run showed its client, across reconnects. */
export interface StreamRecord {
  runId: string;
  tag: string;
  /** The suite disconnected on purpose, or a fault cut the stream and the client resumed. */
  resumed: boolean;
  reconnects: number;
  events: StreamEvent[];
  /** The stream delivered an event with `final: true`. */
  ended: boolean;
  endedAt?: number;
  /** When the connection that delivered (or last tried to deliver) the end was opened. */
  lastConnectedAt: number;
  /** A resumed stream's run replayed from the start right after it ended, to compare against. */
  replay?: StreamEvent[];
  problem?: string;
}

export interface ConversationRecord {
  id: string;
  messages: SentMessage[];
}

export interface LoadRecords {
  conversations: ConversationRecord[];
  streams: StreamRecord[];
  /** Conversations the client could not even create (after retries). */
  createFailures: string[];
}

const PLANS: SendMode[][] = [
  ['stream', 'wait'],
  ['resume', 'stream'],
  ['wait', 'resume'],
  ['async', 'stream'],
];
const MAX_RECONNECTS = 30;
/**
 * A client gives up on a stream after this long without a connection (a restarting API on a busy
 * machine takes up to a minute) or after STREAM_CAP_MS in all.
 */
const STREAM_DEADLINE_MS = 90_000;
const STREAM_CAP_MS = 300_000;

export function startLoad(options: {
  api: ApiClient;
  agentId: string;
  clients: number;
  untilMs: number;
  /** Bound on conversations per client, whatever the time. */
  maxConversationsPerClient?: number;
}): { records: LoadRecords; done: Promise<LoadRecords> } {
  const records: LoadRecords = { conversations: [], streams: [], createFailures: [] };
  const loops = Array.from({ length: options.clients }, (_, client) => clientLoop(options, records, client));
  return { records, done: Promise.all(loops).then(() => records) };
}

async function clientLoop(
  options: Parameters<typeof startLoad>[0],
  records: LoadRecords,
  client: number,
): Promise<void> {
  const max = options.maxConversationsPerClient ?? 10_000;
  for (let n = 0; n < max && Date.now() < options.untilMs; n++) {
    const plan = PLANS[(client + n) % PLANS.length]!;
    const created = await options.api
      .request('POST', '/v1/conversations', {
        body: { agent_id: options.agentId },
        idempotencyKey: `conv-${client}-${n}-${randomBytes(4).toString('hex')}`,
      })
      .catch((error: unknown) => ({ status: 0, json: { error: String(error) } }));
    if (created.status !== 201) {
      records.createFailures.push(`client ${client} #${n}: ${created.status} ${JSON.stringify(created.json)}`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    const conversation: ConversationRecord = { id: created.json.id, messages: [] };
    records.conversations.push(conversation);
    for (const [i, mode] of plan.entries()) {
      const tag = `k${client}n${n}m${i + 1}`;
      const message: SentMessage = {
        tag,
        content: `chaos ${tag}`,
        mode,
        outcome: 'unknown',
        sentAt: Date.now(),
      };
      conversation.messages.push(message);
      // `async` is answered at once: the next message goes while its run still runs (it queues).
      await send(options.api, conversation.id, message, records);
    }
  }
}

async function send(api: ApiClient, conversationId: string, message: SentMessage, records: LoadRecords) {
  const stream = message.mode === 'stream' || message.mode === 'resume';
  const headers: Record<string, string> = stream
    ? { accept: 'text/event-stream' }
    : message.mode === 'async'
      ? { prefer: 'respond-async' }
      : {};
  try {
    const res = await api.request('POST', `/v1/conversations/${conversationId}/messages`, {
      body: { content: message.content },
      headers,
      idempotencyKey: `msg-${message.tag}-${conversationId}`,
      raw: stream,
      attemptTimeoutMs: stream ? STREAM_DEADLINE_MS : 30_000,
    });
    if (res.status >= 400) {
      message.outcome = 'refused';
      message.detail = `${res.status} ${res.json?.code ?? ''}`;
      return;
    }
    message.outcome = 'accepted';
    if (!stream) {
      message.runId = res.json?.id;
      return;
    }
    const runId = /\/v1\/runs\/([^/?]+)/.exec(res.headers.get('location') ?? '')?.[1];
    if (!runId || !res.response) {
      message.detail = `stream without a run id (location ${res.headers.get('location')})`;
      await res.response?.body?.cancel().catch(() => {});
      return;
    }
    message.runId = runId;
    await follow(api, res.response, message, runId, records);
  } catch (error) {
    message.outcome = 'unknown';
    message.detail = error instanceof GaveUpError ? `gave up (last ${error.last}): ${error.message}` : String(error);
  }
}

/** Reads a run's stream to its final event, reconnecting with Last-Event-ID whenever it breaks. */
async function follow(api: ApiClient, first: Response, message: SentMessage, runId: string, records: LoadRecords) {
  const record: StreamRecord = {
    runId,
    tag: message.tag,
    resumed: message.mode === 'resume',
    reconnects: 0,
    events: [],
    ended: false,
    lastConnectedAt: Date.now(),
  };
  records.streams.push(record);
  const cap = Date.now() + STREAM_CAP_MS;
  let until = Date.now() + STREAM_DEADLINE_MS;
  // `resume` goes away after a couple of events, as a closed laptop lid does.
  let part = await readEvents(first, message.mode === 'resume' ? { stopAfter: 2 } : {});
  for (;;) {
    record.events.push(...part.events);
    if (part.end === 'final') {
      record.ended = true;
      record.endedAt = Date.now();
      // At once: a later Redis restart would take the run's events with it.
      if (record.resumed) record.replay = await replay(api, runId);
      return;
    }
    if (record.reconnects >= MAX_RECONNECTS || Date.now() > Math.min(until, cap)) {
      record.problem = `no final event after ${record.reconnects} reconnects (last end: ${part.end} ${part.error ?? ''})`;
      return;
    }
    if (part.end !== 'stopped') record.resumed = true;
    record.reconnects++;
    const lastId = record.events.findLast((e) => e.id !== undefined)?.id;
    try {
      const res = await api.request('GET', `/v1/runs/${runId}/events`, {
        headers: { accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        raw: true,
        retryForMs: Math.max(1000, until - Date.now()),
        attemptTimeoutMs: Math.max(1000, until - Date.now()),
      });
      record.lastConnectedAt = Date.now();
      until = Date.now() + STREAM_DEADLINE_MS;
      if (!res.response) {
        record.problem = `reconnect answered ${res.status} ${JSON.stringify(res.json)}`;
        return;
      }
      part = await readEvents(res.response);
    } catch (error) {
      part = { events: [], end: 'error', error: String(error) };
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** The run's events from the start, as a client that connects after the end gets them. */
export async function replay(api: ApiClient, runId: string): Promise<StreamEvent[]> {
  const res = await api
    .request('GET', `/v1/runs/${runId}/events`, {
      headers: { accept: 'text/event-stream' },
      raw: true,
      retryForMs: 10_000,
      attemptTimeoutMs: 10_000,
    })
    .catch(() => undefined);
  if (!res?.response) return [];
  return (await readEvents(res.response)).events;
}
