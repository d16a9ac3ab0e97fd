import type { ServerResponse } from 'node:http';
import { anthropicFailingStreamEvents, anthropicMessage, anthropicStreamEvents } from './anthropic-wire.ts';
import { errorBody, type WireError } from './error-bodies.ts';
import { sendJson, sleep } from './http-io.ts';
import { openaiCompletion, openaiFailingStreamEvents, openaiStreamEvents } from './openai-wire.ts';
import type { SseEvent } from './sse-event.ts';
import { writeSse } from './sse-writer.ts';
import type { FakeErrorTurn, FakeProtocol, FakeReplyTurn, FakeRequest, FakeTurn } from './types.ts';

/** Everything needed to write one answer. */
export interface Reply {
  res: ServerResponse;
  req: FakeRequest;
  requestId: string;
  /** Fires when the client went away. */
  signal: AbortSignal;
}

/**
 * The request-id header each API sets (OpenAI `x-request-id`, Anthropic `request-id`).
 *
 * @example
 * requestIdHeader('anthropic', 'req_1'); // { 'request-id': 'req_1' }
 */
export function requestIdHeader(protocol: FakeProtocol, requestId: string): Record<string, string> {
  return protocol === 'openai' ? { 'x-request-id': requestId } : { 'request-id': requestId };
}

/** Where an error answer goes and in which protocol's shape. */
export interface ErrorTarget {
  res: ServerResponse;
  protocol: FakeProtocol;
  requestId: string;
}

/**
 * Answers with an HTTP error in the protocol's shape. `extraHeaders` lets the fake add e.g. `x-should-retry`.
 *
 * @example
 * sendError({ res, protocol: 'openai', requestId: 'req_1' }, { status: 404, message: 'no such route' });
 */
export function sendError(target: ErrorTarget, error: WireError, extraHeaders: Record<string, string> = {}): void {
  const headers = { ...requestIdHeader(target.protocol, target.requestId), ...extraHeaders };
  sendJson(target.res, error.status, errorBody(target.protocol, error, target.requestId), headers);
}

function requestModel(req: FakeRequest): string {
  return typeof req.body?.model === 'string' ? req.body.model : 'fake-model';
}

function streamEvents(turn: FakeReplyTurn, req: FakeRequest): SseEvent[] {
  const model = requestModel(req);
  if (req.protocol === 'anthropic') return anthropicStreamEvents(turn, model);
  return openaiStreamEvents(turn, { model, includeUsage: req.body?.stream_options?.include_usage === true });
}

async function answerReply(reply: Reply, turn: FakeReplyTurn): Promise<void> {
  const { req, res } = reply;
  const headers = requestIdHeader(req.protocol, reply.requestId);
  if (req.stream) {
    const options = { headers, chunkDelayMs: turn.chunkDelayMs, signal: reply.signal };
    await writeSse(res, streamEvents(turn, req), options);
  } else if (req.protocol === 'anthropic') {
    sendJson(res, 200, anthropicMessage(turn, requestModel(req)), headers);
  } else {
    sendJson(res, 200, openaiCompletion(turn, { model: requestModel(req), includeUsage: false }), headers);
  }
}

async function answerError(reply: Reply, turn: FakeErrorTurn): Promise<void> {
  const { req } = reply;
  const error = {
    status: turn.status,
    message: turn.message ?? `Fake LLM scripted error ${turn.status}`,
    errorType: turn.errorType,
  };
  if (turn.midStream && req.stream) {
    const model = requestModel(req);
    const events =
      req.protocol === 'anthropic'
        ? anthropicFailingStreamEvents(error, model, reply.requestId)
        : openaiFailingStreamEvents(error, { model, includeUsage: false });
    await writeSse(reply.res, events, {
      headers: requestIdHeader(req.protocol, reply.requestId),
      signal: reply.signal,
    });
    return;
  }
  const retryAfter: Record<string, string> =
    turn.retryAfterSeconds === undefined ? {} : { 'retry-after': String(turn.retryAfterSeconds) };
  sendError({ res: reply.res, protocol: req.protocol, requestId: reply.requestId }, error, retryAfter);
}

/**
 * Writes a scripted turn as the protocol's answer, after the turn's `delayMs`.
 *
 * @example
 * await answerTurn(reply, { type: 'reply', text: 'Hi' });
 */
export async function answerTurn(reply: Reply, turn: FakeTurn): Promise<void> {
  if (turn.type === 'error') return answerError(reply, turn);
  await sleep(turn.delayMs, reply.signal);
  if (reply.signal.aborted) return;
  return answerReply(reply, turn);
}
