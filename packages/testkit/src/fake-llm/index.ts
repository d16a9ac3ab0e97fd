export { thinkingSignature } from './anthropic-wire.ts';
export { demoResponder } from './demo-responder.ts';
export { startFakeLlm } from './server.ts';
export type {
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
