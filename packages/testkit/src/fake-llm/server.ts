import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerEmbeddings, type EmbeddingsState } from './embeddings-route.ts';
import { clientGone, flatHeaders, parseJsonObject, readBodyText } from './http-io.ts';
import { wireId } from './ids.ts';
import { answerTurn, type ErrorTarget, sendError } from './respond.ts';
import { createScript, type Script } from './script.ts';
import type { FakeLlmOptions, FakeLlmServer, FakeProtocol, FakeRequest } from './types.ts';

/** A failure the fake itself must not retry-loop on: tell the SDKs not to retry it. */
const NO_RETRY = { 'x-should-retry': 'false' };

const ROUTES: Record<string, FakeProtocol> = {
  '/v1/chat/completions': 'openai',
  '/v1/messages': 'anthropic',
};

/** The protocol whose error shape an unknown route gets: Anthropic's paths all live under /v1/messages. */
function guessProtocol(path: string): FakeProtocol {
  return path.startsWith('/v1/messages') ? 'anthropic' : 'openai';
}

interface State {
  script: Script;
  requests: FakeRequest[];
  embeddings: EmbeddingsState;
}

/** Reads and validates the model request; answers 4xx itself and returns undefined when it is not one. */
async function readModelRequest(
  req: IncomingMessage,
  target: ErrorTarget,
  path: string,
): Promise<FakeRequest | undefined> {
  const protocol = req.method === 'POST' ? ROUTES[path] : undefined;
  if (!protocol) {
    sendError(target, { status: 404, message: `Fake LLM: no route for ${req.method} ${path}` }, NO_RETRY);
    return undefined;
  }
  const body = parseJsonObject(await readBodyText(req));
  if (!body) {
    const error = { status: 400, message: 'Fake LLM: the request body is not a JSON object' };
    sendError({ ...target, protocol }, error, NO_RETRY);
    return undefined;
  }
  return { protocol, path, headers: flatHeaders(req.headers), body, stream: body.stream === true };
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const signal = clientGone(res);
  const path = new URL(req.url ?? '/', 'http://fake').pathname;
  const target: ErrorTarget = { res, protocol: guessProtocol(path), requestId: wireId('req_') };
  if (req.method === 'GET' && path.endsWith('/models')) return listModels(res);
  if (req.method === 'POST' && path === '/v1/embeddings') {
    return answerEmbeddings(state.embeddings, req, res, { ...target, protocol: 'openai' }, signal);
  }
  const request = await readModelRequest(req, target, path);
  if (!request) return;
  state.requests.push(request);
  const errorTarget = { ...target, protocol: request.protocol };
  let turn: Awaited<ReturnType<Script['next']>>;
  try {
    turn = await state.script.next(request);
  } catch (error) {
    const message = `Fake LLM: the responder threw: ${error instanceof Error ? error.message : String(error)}`;
    return sendError(errorTarget, { status: 500, message }, NO_RETRY);
  }
  if (!turn) {
    const message = `Fake LLM script is empty: no queued turn and no responder for POST ${path} (call enqueue() or setResponder())`;
    return sendError(errorTarget, { status: 500, message }, NO_RETRY);
  }
  await answerTurn({ res, req: request, requestId: target.requestId, signal }, turn);
}

/** The models the fake "serves" (both wire formats list `{ data: [{ id }] }`), for connection tests. */
export const FAKE_MODELS = ['fake-large', 'fake-small'];

function listModels(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', data: FAKE_MODELS.map((id) => ({ id, object: 'model', type: 'model' })) }));
}

/** A bug in the fake must fail the one request loudly, never crash the test process. */
function onRequest(state: State): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // A client that disconnects mid-write makes the socket emit errors; they are expected, not fatal.
    res.on('error', () => {});
    req.on('error', () => {});
    handle(state, req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = `Fake LLM internal error: ${error instanceof Error ? error.message : String(error)}`;
      sendError({ res, protocol: 'openai', requestId: wireId('req_') }, { status: 500, message }, NO_RETRY);
    });
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive sockets from the SDKs' fetch pools would otherwise hold close() open forever.
    server.closeAllConnections();
  });
}

/**
 * Starts a local HTTP server speaking the OpenAI Chat Completions (and Embeddings) and Anthropic Messages wire protocols,
 * answering from a script of turns, so the real SDKs can be tested against it via their `baseURL`.
 *
 * @example
 * const fake = await startFakeLlm();
 * fake.enqueue({ type: 'reply', text: 'Hello!' });
 * const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake' });
 * await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
 * await fake.close();
 */
export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  const state: State = {
    script: createScript(options.responder),
    requests: [],
    embeddings: { queue: [], requests: [] },
  };
  const server = createServer(onRequest(state));
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests: state.requests,
    embeddingRequests: state.embeddings.requests,
    enqueueEmbeddings: (...turns) => {
      state.embeddings.queue.push(...turns);
    },
    enqueue: (...turns) => state.script.enqueue(...turns),
    setResponder: (fn) => state.script.setResponder(fn),
    pending: () => state.script.pending(),
    reset: () => {
      state.script.reset();
      // Emptied in place: callers may hold a reference to `requests`.
      state.requests.length = 0;
      state.embeddings.requests.length = 0;
      state.embeddings.queue.length = 0;
    },
    close: () => closeServer(server),
  };
}
