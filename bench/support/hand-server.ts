/**
 * The streaming bench's fair baseline (d): what a team would write without a platform. A minimal
 * `node:http` handler, `POST /chat` with `{ "question", "model" }`, runs the bare loop
 * (bench/support/bare-loop.ts: the openai SDK against the fake model, the tool through `fetch`) and
 * relays each text delta to its client as it arrives, one SSE event `data: {"text":…}` per delta,
 * then `event: done`. No persistence, no queue, no resumption. Env: LLM_URL, TOOL_URL. Prints one
 * JSON line `{ url }` once it listens; exits on SIGTERM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BareRun, bareLoop } from './bare-loop.ts';

const setting = (name: string): string => process.env[name] ?? '';
const services = { llm: setting('LLM_URL'), tool: setting('TOOL_URL') };
const loops = new Map<string, BareRun>();

async function readJson(req: http.IncomingMessage): Promise<{ question: string; model: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { question: string; model: string };
}

const server = http.createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/chat') {
    res.writeHead(404).end();
    return;
  }
  const { question, model } = await readJson(req);
  const loop = loops.get(model) ?? bareLoop(services, model);
  loops.set(model, loop);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  try {
    await loop(question, (text) => res.write(`data: ${JSON.stringify({ text })}\n\n`));
    res.end('event: done\ndata: {}\n\n');
  } catch (error) {
    res.end(`event: error\ndata: ${JSON.stringify({ message: String(error) })}\n\n`);
  }
});
// Connections stay open between a client's runs, as the bench's fetch keeps them.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
