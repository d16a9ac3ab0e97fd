/**
 * The durability promises the chaos suite checks, each a pure function of what the suite observed
 * (the load's records, the runs and transcripts read back after the drain, the tool server's
 * requests, the API's answers and the processes' exits), returning how many things it checked
 * and every violation with its evidence and time span (to attribute it to a fault).
 *
 * @example
 * const results = checkInvariants(observations);
 * results.filter((r) => r.violations.length > 0);
 */
import type { RecordedHttpRequest } from '@agentry/testkit';
import { GET_TOOL_PATH, POST_TOOL_PATH, tagOf } from './agent.ts';
import type { HttpStats } from './http-client.ts';
import type { LoadRecords, SentMessage, StreamRecord } from './load.ts';
import type { ProcessExit } from './processes.ts';
import type { StreamEvent } from './sse.ts';

// biome-ignore lint/suspicious/noExplicitAny: API views read ad hoc
type View = any;

export interface Observations {
  records: LoadRecords;
  /** GET /v1/runs/:id after the drain (undefined: could not be read). */
  runs: Map<string, View | undefined>;
  /** GET /v1/conversations/:id messages after the drain. */
  transcripts: Map<string, View[] | undefined>;
  /** A full replay (no Last-Event-ID) of each resumed stream's run after it ended. */
  replays: Map<string, StreamEvent[]>;
  toolRequests: RecordedHttpRequest[];
  http: HttpStats;
  exits: ProcessExit[];
  /** How long after its run finished a stream may still be open. */
  streamEndDeadlineMs: number;
}

export interface Violation {
  id: string;
  detail: string;
  /** When the thing began and ended (ms since epoch), to attribute it to faults. */
  from: number;
  to: number;
}

export interface InvariantResult {
  name: string;
  checked: number;
  violations: Violation[];
}

export const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timed_out']);
/** Failures that are the platform's, not the run's own (model, tool, limits). */
export const INFRASTRUCTURE_CODES = new Set([
  'internal_error',
  'database_unavailable',
  'queue_unavailable',
  'run_abandoned',
]);

/** The run each sent message became: as the API named it, else found in the transcript. */
export function runIdsOf(obs: Pick<Observations, 'records' | 'transcripts'>): Map<SentMessage, string> {
  const ids = new Map<SentMessage, string>();
  for (const conversation of obs.records.conversations) {
    const stored = obs.transcripts.get(conversation.id) ?? [];
    for (const message of conversation.messages) {
      const found = stored.find((m: View) => m.role === 'user' && userText(m) === message.content)?.run_id;
      const id = message.runId ?? found;
      if (id) ids.set(message, id);
    }
  }
  return ids;
}

function userText(message: View): string {
  return (message.content ?? []).map((p: View) => (p.type === 'text' ? p.text : '')).join('');
}

function endOf(run: View | undefined): number {
  return run?.finished_at ? Date.parse(run.finished_at) : Date.now();
}

function allMessages(obs: Observations): SentMessage[] {
  return obs.records.conversations.flatMap((c) => c.messages);
}

/** Every message was accepted (the API named its run), not refused and not left unanswered. */
export function checkMessagesAccepted(obs: Observations): InvariantResult {
  const messages = allMessages(obs);
  const violations = messages
    .filter((m) => m.outcome !== 'accepted')
    .map((m) => ({ id: m.tag, detail: `${m.outcome} (${m.mode}): ${m.detail ?? ''}`, from: m.sentAt, to: m.sentAt }));
  for (const failure of obs.records.createFailures)
    violations.push({ id: 'conversation', detail: failure, from: Date.now(), to: Date.now() });
  return { name: 'messages accepted', checked: messages.length, violations };
}

/** Every message that became a run reached a final status after the drain. */
export function checkRunsTerminal(obs: Observations): InvariantResult {
  const ids = runIdsOf(obs);
  const violations: Violation[] = [];
  for (const [message, runId] of ids) {
    const status = obs.runs.get(runId)?.status;
    if (!FINAL_STATUSES.has(status))
      violations.push({
        id: runId,
        detail: `${message.tag} still ${status ?? 'unreadable'}`,
        from: message.sentAt,
        to: Date.now(),
      });
  }
  return { name: 'runs reached a final status', checked: ids.size, violations };
}

/** No final run failed (or was cancelled: nobody cancels) for an infrastructure reason. */
export function checkNoInfrastructureFailures(obs: Observations): InvariantResult {
  const ids = runIdsOf(obs);
  const violations: Violation[] = [];
  for (const [message, runId] of ids) {
    const run = obs.runs.get(runId);
    if (!run || run.status === 'completed' || !FINAL_STATUSES.has(run.status)) continue;
    const code: string = run.error?.code ?? '';
    const infrastructure =
      run.status === 'cancelled' || INFRASTRUCTURE_CODES.has(code) || run.error?.category === 'system';
    if (infrastructure)
      violations.push({
        id: runId,
        detail: `${message.tag} ${run.status} ${code}: ${String(run.error?.message ?? '').slice(0, 120)}`,
        from: message.sentAt,
        to: endOf(run),
      });
  }
  return { name: 'no infrastructure failures', checked: ids.size, violations };
}

/**
 * Each conversation's stored user messages are what was sent, once each, in order; each completed
 * run's reply (`ack <tag> done`) is stored once, after its user message; seqs are 1..n.
 */
export function checkTranscripts(obs: Observations): InvariantResult {
  const violations: Violation[] = [];
  const ids = runIdsOf(obs);
  for (const conversation of obs.records.conversations) {
    const stored = obs.transcripts.get(conversation.id);
    const from = conversation.messages[0]?.sentAt ?? Date.now();
    const fail = (detail: string) => violations.push({ id: conversation.id, detail, from, to: Date.now() });
    if (!stored) {
      fail('transcript unreadable');
      continue;
    }
    const users = stored.filter((m: View) => m.role === 'user').map(userText);
    const sent = conversation.messages.filter((m) => m.outcome === 'accepted' || users.includes(m.content));
    const lost = sent.filter((m) => m.outcome === 'accepted' && !users.includes(m.content)).map((m) => m.tag);
    const duplicated = [...new Set(users.filter((u: string, i: number) => users.indexOf(u) !== i))];
    const order = users.filter((u: string, i: number) => users.indexOf(u) === i);
    const expected = sent.map((m) => m.content).filter((c) => order.includes(c));
    if (lost.length) fail(`lost ${lost.join(', ')}`);
    if (duplicated.length) fail(`duplicated ${duplicated.join(', ')}`);
    if (order.join('|') !== expected.join('|')) fail(`reordered: stored ${order.join(', ')}`);
    const seqs = stored.map((m: View) => m.seq);
    if (seqs.some((s: number, i: number) => s !== i + 1)) fail(`seqs ${seqs.join(',')}`);
    for (const message of sent) {
      const runId = ids.get(message);
      if (!runId || obs.runs.get(runId)?.status !== 'completed') continue;
      const replies = stored.filter(
        (m: View) => m.role === 'assistant' && m.run_id === runId && userText(m).includes(`ack ${message.tag} `),
      );
      if (replies.length !== 1) fail(`${message.tag}: ${replies.length} stored replies`);
    }
  }
  return { name: 'transcripts exact', checked: obs.records.conversations.length, violations };
}

/** Each (run, tool call) key reached the POST endpoint at most once and the GET endpoint at most twice. */
export function checkToolIdempotency(obs: Observations): InvariantResult {
  const byKey = new Map<string, RecordedHttpRequest[]>();
  const violations: Violation[] = [];
  for (const req of obs.toolRequests) {
    const key = req.headers['idempotency-key'];
    if (!key) {
      violations.push({
        id: req.path,
        detail: `no Idempotency-Key on ${req.method} ${req.path}`,
        from: req.receivedAt,
        to: req.receivedAt,
      });
      continue;
    }
    const list = byKey.get(`${req.path} ${key}`) ?? [];
    list.push(req);
    byKey.set(`${req.path} ${key}`, list);
  }
  for (const [key, list] of byKey) {
    const limit = list[0]!.path === POST_TOOL_PATH ? 1 : list[0]!.path === GET_TOOL_PATH ? 2 : 0;
    if (list.length > limit)
      violations.push({
        id: key,
        detail: `${list.length} requests (at most ${limit}) ref ${tagOf(`chaos ${String((list[0]!.json as { ref?: string })?.ref ?? list[0]!.query.ref)}`)}`,
        from: list[0]!.receivedAt,
        to: list.at(-1)!.receivedAt,
      });
  }
  return { name: 'tool calls at most once (POST) / twice (GET)', checked: byKey.size, violations };
}

/** A resumed stream's events are the run's full replay: nothing missing, nothing twice, in order. */
export function checkResumedStreams(obs: Observations): InvariantResult {
  const resumed = obs.records.streams.filter((s) => s.resumed);
  const violations: Violation[] = [];
  for (const stream of resumed) {
    const detail = compareToReplay(stream, obs.replays.get(stream.runId));
    if (detail)
      violations.push({
        id: stream.runId,
        detail: `${stream.tag}: ${detail}`,
        from: startOf(stream, obs),
        to: stream.endedAt ?? Date.now(),
      });
  }
  return { name: 'resumed streams exact', checked: resumed.length, violations };
}

function startOf(stream: StreamRecord, obs: Observations): number {
  return allMessages(obs).find((m) => m.tag === stream.tag)?.sentAt ?? Date.now();
}

/**
 * The stream's ids are unique and increasing, and agree with the replay wherever both have
 * events: every replayed event the stream should have shown is in it (no gap), and every event it
 * showed after the replay's first one is replayed (nothing invented). Events older than the
 * replay's first are not compared: a Redis restart emptied the bus (see `busLosses`).
 */
function compareToReplay(stream: StreamRecord, replay: StreamEvent[] | undefined): string | undefined {
  if (!stream.ended) return undefined; // counted by "streams ended"
  const seen = stream.events.filter((e) => e.id !== undefined).map((e) => e.id!);
  const twice = seen.filter((id, i) => seen.indexOf(id) !== i);
  if (twice.length) return `duplicate ids ${twice.slice(0, 3).join(',')}`;
  const backwards = seen.filter((id, i) => i > 0 && compareIds(id, seen[i - 1]!) <= 0);
  if (backwards.length) return `ids go backwards at ${backwards.slice(0, 2).join(',')}`;
  let full = (replay ?? []).filter((e) => e.id !== undefined).map((e) => e.id!);
  // A stream whose bus failed ends with the run from the database (a `run` event without an id)
  // instead of the bus events it had not delivered: exact up to its last bus event.
  if (stream.events.some((e) => e.id === undefined && e.event === 'run')) {
    const last = seen.at(-1);
    full = last === undefined ? [] : full.filter((id) => compareIds(id, last) <= 0);
  }
  if (full.length === 0) return undefined; // nothing to compare: the bus lost the run (busLosses)
  const first = full[0]!;
  const missing = full.filter((id) => !seen.includes(id));
  const extra = seen.filter((id) => compareIds(id, first) >= 0 && !full.includes(id));
  if (missing.length || extra.length)
    return `missing ${missing.length} (${missing.slice(0, 2).join(',')}), extra ${extra.length} (${extra.slice(0, 2).join(',')}) of ${full.length} replayed`;
  return undefined;
}

/** Redis stream ids `<ms>-<n>`, compared as numbers. */
function compareIds(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('-').map(Number);
  const [bm = 0, bn = 0] = b.split('-').map(Number);
  return am - bm || an - bn;
}

/**
 * Not an invariant (a private Redis keeps nothing across a restart): resumed runs whose replay
 * lacks events their stream showed, i.e. the bus lost them. Printed in the report.
 */
export function busLosses(obs: Observations): string[] {
  return obs.records.streams.flatMap((stream) => {
    const replayed = new Set((obs.replays.get(stream.runId) ?? []).map((e) => e.id).filter(Boolean));
    if (!stream.resumed || !obs.replays.has(stream.runId)) return [];
    const lost = stream.events.filter((e) => e.id !== undefined && !replayed.has(e.id)).length;
    return lost ? [`${stream.runId} (${stream.tag}): ${lost} of ${stream.events.length} events gone`] : [];
  });
}

/** Every stream ended with a final event, and within the deadline after its run finished. */
export function checkStreamsEnded(obs: Observations): InvariantResult {
  const violations: Violation[] = [];
  for (const stream of obs.records.streams) {
    const run = obs.runs.get(stream.runId);
    const from = startOf(stream, obs);
    if (!stream.ended) {
      violations.push({
        id: stream.runId,
        detail: `${stream.tag}: ${stream.problem ?? 'no final event'} (run ${run?.status})`,
        from,
        to: Date.now(),
      });
      continue;
    }
    // Counted from the run's end or, when the API was down then, from the reconnection.
    const finished = run?.finished_at ? Math.max(Date.parse(run.finished_at), stream.lastConnectedAt) : undefined;
    const late = finished !== undefined && stream.endedAt! - finished > obs.streamEndDeadlineMs;
    if (late)
      violations.push({
        id: stream.runId,
        detail: `${stream.tag}: ended ${stream.endedAt! - finished!} ms after its run (or its last reconnection)`,
        from,
        to: stream.endedAt!,
      });
  }
  return { name: 'streams ended with run-status', checked: obs.records.streams.length, violations };
}

/** The API never answered 5xx other than 503, and 503/429 always with Retry-After. */
export function checkNoServerErrors(obs: Observations): InvariantResult {
  const total = [...obs.http.byStatus.values()].reduce((a, b) => a + b, 0);
  const violations = obs.http.bad.map((b) => ({
    id: `${b.status} ${b.method} ${b.path}`,
    detail: b.body,
    from: b.at,
    to: b.at,
  }));
  for (let i = violations.length; i < obs.http.badCount; i++)
    violations.push({ id: 'more', detail: '(evidence not kept)', from: Date.now(), to: Date.now() });
  return { name: 'no 5xx answers (503/429 with Retry-After)', checked: total, violations };
}

/** No process exited but those the suite killed; a SIGTERM'd one exited 0. */
export function checkProcessExits(obs: Observations): InvariantResult {
  const violations: Violation[] = [];
  for (const exit of obs.exits) {
    const unexpected = !exit.killedWith;
    const unclean = exit.killedWith === 'SIGTERM' && exit.code !== 0;
    if (!unexpected && !unclean) continue;
    const why = unexpected
      ? `exited by itself (code ${exit.code}, signal ${exit.signal})`
      : `SIGTERM → exit code ${exit.code}`;
    violations.push({
      id: `${exit.name} pid ${exit.pid}`,
      detail: `${why}; last line: ${exit.lastLines.filter(Boolean).at(-1)?.slice(0, 200) ?? ''}`,
      from: exit.at,
      to: exit.at,
    });
  }
  return { name: 'no process exited unless killed', checked: obs.exits.length, violations };
}

export function checkInvariants(obs: Observations): InvariantResult[] {
  return [
    checkMessagesAccepted(obs),
    checkRunsTerminal(obs),
    checkNoInfrastructureFailures(obs),
    checkTranscripts(obs),
    checkToolIdempotency(obs),
    checkResumedStreams(obs),
    checkStreamsEnded(obs),
    checkNoServerErrors(obs),
    checkProcessExits(obs),
  ];
}
