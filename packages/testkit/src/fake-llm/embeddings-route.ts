import type { IncomingMessage, ServerResponse } from 'node:http';
import { embeddingsResponse, parseEmbeddingsBody } from './embeddings-wire.ts';
import { flatHeaders, parseJsonObject, readBodyText, sendJson, sleep } from './http-io.ts';
import { answerTurn, type ErrorTarget, requestIdHeader, sendError } from './respond.ts';
import type { FakeEmbeddingsTurn, FakeRequest } from './types.ts';

/** The embeddings endpoint's own script and log. */
export interface EmbeddingsState {
  queue: FakeEmbeddingsTurn[];
  requests: FakeRequest[];
}

/** Bad requests are the caller's bug: tell the SDK not to retry them. */
const NO_RETRY = { 'x-should-retry': 'false' };

/**
 * Answers `POST /v1/embeddings`: the next scripted turn, else the deterministic vectors.
 *
 * @example
 * if (path === '/v1/embeddings') return answerEmbeddings(state.embeddings, req, res, target, signal);
 */
export async function answerEmbeddings(
  state: EmbeddingsState,
  req: IncomingMessage,
  res: ServerResponse,
  target: ErrorTarget,
  signal: AbortSignal,
): Promise<void> {
  const text = await readBodyText(req);
  const body = parseJsonObject(text);
  if (!body)
    return sendError(target, { status: 400, message: 'Fake LLM: the request body is not a JSON object' }, NO_RETRY);
  const request: FakeRequest = {
    protocol: 'openai',
    path: '/v1/embeddings',
    headers: flatHeaders(req.headers),
    body,
    stream: false,
  };
  state.requests.push(request);
  const turn = state.queue.shift() ?? { type: 'embeddings' };
  if (turn.type === 'error') return answerTurn({ res, req: request, requestId: target.requestId, signal }, turn);
  const parsed = parseEmbeddingsBody(body);
  if (!parsed.ok) return sendError(target, { status: 400, message: parsed.message }, NO_RETRY);
  await sleep(turn.delayMs, signal);
  if (signal.aborted) return;
  sendJson(res, 200, embeddingsResponse(parsed), requestIdHeader('openai', target.requestId));
}
