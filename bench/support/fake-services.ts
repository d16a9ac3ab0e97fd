/**
 * The end-to-end benches' stand-ins, in their own process so the measuring client's event loop
 * does not also serve them: the fake LLM (OpenAI wire) and the recording server the agent's HTTP
 * tool calls. Prints one JSON line `{ llm, tool, pid }` once both listen; exits on SIGTERM.
 *
 * The responder is stateless, so it serves any number of concurrent conversations: a tool call
 * while the last message is not a tool result, the answer once it is. Requests for the model
 * named `fake-slow` wait `SLOW_MS` (default 2000) before answering; `fake-instant` answers at once.
 * A request that offers no tools (an agent without tools) gets the answer at once: one model call per run.
 * The models `stream-instant` and `stream-paced` serve the streaming bench's workload
 * (bench/support/streaming-workload.ts: a long answer in small stamped pieces).
 */
import { type FakeRequest, type FakeTurn, startFakeLlm, startRecordingServer } from '@agentry/testkit';
import { streamingTurn } from './streaming-workload.ts';

const setting = (name: string): string | undefined => process.env[name];
const slowMs = Number(setting('SLOW_MS') ?? 2000);

function responder(req: FakeRequest): FakeTurn {
  const streaming = streamingTurn(req);
  if (streaming) return streaming;
  const delayMs = req.body.model === 'fake-slow' ? slowMs : 0;
  const last = req.body.messages?.at(-1);
  if (last?.role === 'tool' || !req.body.tools?.length) {
    return {
      type: 'reply',
      text: 'Item 42 has 7 in stock; a colleague will follow up.',
      chunkSize: 16,
      delayMs,
    };
  }
  return {
    type: 'reply',
    toolCalls: [{ name: 'lookup_stock', arguments: { item: '42', email: 'ann@example.com' } }],
    delayMs,
  };
}

const llm = await startFakeLlm({ responder });
const tool = await startRecordingServer();
tool.respondWith(() => ({ body: { item: '42', stock: 7 } }));

// Both servers keep every request for tests; a bench sends hundreds of thousands, so drop them.
let served = { llm: 0, tool: 0 };
setInterval(() => {
  served = { llm: served.llm + llm.requests.length, tool: served.tool + tool.requests.length };
  llm.requests.length = 0;
  tool.requests.length = 0;
}, 500).unref();

process.stdout.write(`${JSON.stringify({ llm: llm.openaiBaseUrl, tool: tool.url, pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  process.stderr.write(`served ${JSON.stringify(served)}\n`);
  void Promise.all([llm.close(), tool.close()]).then(() => process.exit(0));
});
