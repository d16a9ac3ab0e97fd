/**
 * One tool call the fake model makes.
 *
 * @example
 * const call: FakeToolCall = { name: 'save_contact', arguments: { email: 'ada@example.com' } };
 */
export interface FakeToolCall {
  /** Defaults to a generated `call_…` (OpenAI) or `toolu_…` (Anthropic) id. */
  id?: string;
  name: string;
  /** A string is sent verbatim (so tests can send malformed JSON); anything else is JSON-stringified. */
  arguments: unknown | string;
}

/**
 * Token counts the fake reports. `input` means input tokens NOT served from the cache (Anthropic's
 * `input_tokens`); OpenAI's `prompt_tokens` is reported as `input + cacheRead` because OpenAI counts
 * cached tokens inside it. OpenAI has no cache-write counter, so `cacheWrite` only shows on Anthropic.
 */
export interface FakeUsage {
  /** Default 10. */
  input?: number;
  /** Default 5. */
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A successful model answer. */
export interface FakeReplyTurn {
  type: 'reply';
  text?: string;
  /** Anthropic: a signed `thinking` block before the text. OpenAI: `reasoning_content` (DeepSeek/OpenRouter style). */
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  usage?: FakeUsage;
  /** Defaults to 'tool_calls' (OpenAI) / 'tool_use' (Anthropic) when there are tool calls, else stop / end_turn. */
  finishReason?: 'stop' | 'length' | 'tool_calls';
  /** Stream text in chunks of N characters (default 8). */
  chunkSize?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Wait this long between two streamed events. */
  chunkDelayMs?: number;
  /**
   * Streaming only: called for each text piece at the moment it is written (not when the answer is
   * built), and its result is sent instead, so a benchmark can stamp each delta's emission time.
   *
   * @example
   * fake.enqueue({ type: 'reply', text: 'a'.repeat(40), chunkSize: 8, onTextPiece: (p) => `${Date.now()}`.slice(-8) });
   */
  onTextPiece?: (piece: string) => string;
}

/** An API error answer: that HTTP status and the protocol's error body. */
export interface FakeErrorTurn {
  type: 'error';
  status: number;
  message?: string;
  /** Sent as the `retry-after` header, so SDK retry logic can be exercised. */
  retryAfterSeconds?: number;
  /** Overrides the protocol's error `type` (e.g. 'overloaded_error'). */
  errorType?: string;
  /**
   * For streaming requests only: answer 200, start the stream, then fail inside it (Anthropic
   * `event: error`, OpenAI a `data: {"error":…}` chunk), as the real APIs do when overloaded mid-answer.
   */
  midStream?: boolean;
}

/**
 * One scripted model answer; one is consumed per model request.
 *
 * @example
 * fake.enqueue({ type: 'reply', text: 'Hello!' }, { type: 'error', status: 429, retryAfterSeconds: 0 });
 */
export type FakeTurn = FakeReplyTurn | FakeErrorTurn;

/** A scripted `/v1/embeddings` success: the built-in deterministic vectors, after `delayMs`. */
export interface FakeEmbeddingsReplyTurn {
  type: 'embeddings';
  delayMs?: number;
}

/**
 * One scripted answer of `POST /v1/embeddings`, from its own queue (chat turns are never consumed
 * by embedding calls). With the queue empty the fake answers with the deterministic vectors.
 *
 * @example
 * fake.enqueueEmbeddings({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'embeddings' });
 */
export type FakeEmbeddingsTurn = FakeEmbeddingsReplyTurn | FakeErrorTurn;

export type FakeProtocol = 'openai' | 'anthropic';

/** A model request as the fake received it. */
export interface FakeRequest {
  protocol: FakeProtocol;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body as received. */
  // biome-ignore lint/suspicious/noExplicitAny: wire bodies of two protocols, read ad hoc by tests and responders
  body: any;
  stream: boolean;
}

/** Decides the answer when the script queue is empty. */
export type FakeResponder = (req: FakeRequest) => FakeTurn | Promise<FakeTurn>;

/** A running fake LLM server. */
export interface FakeLlmServer {
  /** 'http://127.0.0.1:PORT' */
  url: string;
  /** url + '/v1': what the openai SDK's `baseURL` wants. */
  openaiBaseUrl: string;
  /** url: the anthropic SDK appends /v1/messages itself. */
  anthropicBaseUrl: string;
  /** Appends turns to the FIFO script; one turn is consumed per model request, whatever the protocol. */
  enqueue(...turns: FakeTurn[]): void;
  /** Used when the queue is empty; `undefined` removes it. */
  setResponder(fn: FakeResponder | undefined): void;
  /** Every model request received, in order (chat and messages; embedding calls are in `embeddingRequests`). */
  requests: FakeRequest[];
  /**
   * Scripts `POST /v1/embeddings` answers (errors, delays); its queue is separate from `enqueue`'s.
   * Unscripted calls get `hashEmbedding` vectors (`@agentry/provider-demo`) of the request's
   * `dimensions` (default 256), as floats or as base64 per `encoding_format`.
   */
  enqueueEmbeddings(...turns: FakeEmbeddingsTurn[]): void;
  /** Every `POST /v1/embeddings` received, in order (`body.input` holds the texts). */
  embeddingRequests: FakeRequest[];
  /** Turns left in the queue. */
  pending(): number;
  /** Clears both queues, the responder and both request lists. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  responder?: FakeResponder;
}
