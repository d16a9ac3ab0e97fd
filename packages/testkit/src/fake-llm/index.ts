export { thinkingSignature } from './anthropic-wire.ts';
export { demoResponder } from './demo-responder.ts';
export { FAKE_EMBEDDING_DIMENSIONS } from './embeddings-wire.ts';
export { FAKE_MODELS, startFakeLlm } from './server.ts';
export type {
  FakeEmbeddingsReplyTurn,
  FakeEmbeddingsTurn,
  FakeErrorTurn,
  FakeLlmOptions,
  FakeLlmServer,
  FakeProtocol,
  FakeReplyTurn,
  FakeRequest,
  FakeResponder,
  FakeToolCall,
  FakeTurn,
  FakeUsage,
} from './types.ts';
