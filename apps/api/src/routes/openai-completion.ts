import { getRun, listRunMessages, type Run, type StoredMessage } from '@agentry/db';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ApiDeps } from '../deps.ts';
import { waitForRunEnd } from '../http/run-wait.ts';
import { perTick, sseFrame } from '../http/sse-batches.ts';
import { openAiErrorBody, runError } from './openai-errors.ts';
import type { ChatRequest } from './openai-request.ts';

// A run answered as OpenAI's `chat.completion`, or streamed as `chat.completion.chunk`s.

/** Comments keep the stream open through proxies while the agent works. */
const HEARTBEAT_MS = 15_000;

export interface StartedRun {
  run: Run;
  conversationId: string;
}

/** Everything the assistant said during the run, in order (what the stream sent as deltas). */
function replyText(messages: StoredMessage[]): string {
  return messages
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])))
    .join('');
}

function finishReason(run: Run): 'stop' | 'length' | 'content_filter' {
  const last = run.steps.at(-1)?.finishReason;
  return last === 'length' || last === 'content_filter' ? last : 'stop';
}

/** OpenAI's usage: `prompt_tokens` includes cached tokens, which Agentry counts apart. */
function usageOf(run: Run) {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = run.usage;
  const prompt = inputTokens + cacheReadTokens + cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: outputTokens,
    total_tokens: prompt + outputTokens,
    prompt_tokens_details: { cached_tokens: cacheReadTokens },
  };
}

interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

function metaOf(run: Run, model: string): CompletionMeta {
  return { id: run.id, created: Math.floor(run.createdAt.getTime() / 1000), model };
}

export async function completion(deps: ApiDeps, c: Context, tenantId: string, started: StartedRun, model: string) {
  const outcome = await waitForRunEnd(deps.events, started.run.id, deps.runWaitMs, deps.runFinishes, {
    orParked: true,
  });
  const run = (await getRun(deps.db, tenantId, started.run.id)) ?? started.run;
  if (outcome === 'timeout' || run.status !== 'completed') throw runError(run);
  const content = replyText(await listRunMessages(deps.db, tenantId, run.id));
  return c.json({
    ...metaOf(run, model),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: finishReason(run),
      },
    ],
    usage: usageOf(run),
  });
}

/** The run as `chat.completion.chunk`s built from its `text-delta` events, then `[DONE]`. */
export function completionStream(deps: ApiDeps, c: Context, tenantId: string, started: StartedRun, body: ChatRequest) {
  const meta = { ...metaOf(started.run, body.model), object: 'chat.completion.chunk' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...meta,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const heartbeat = setInterval(() => void stream.write(': ping\n\n'), HEARTBEAT_MS);
    const send = (data: unknown) => stream.writeSSE({ data: JSON.stringify(data) });
    let sent = '';
    try {
      await send(chunk({ role: 'assistant', content: '' }));
      try {
        const records = deps.events.subscribe(started.run.id, {
          signal: controller.signal,
          endWhenUnavailable: deps.runFinishes !== undefined,
        });
        // What one bus read returned goes to the client in one write.
        relay: for await (const batch of perTick(records)) {
          let frames = '';
          for (const { event } of batch) {
            if (event.type === 'text-delta' && typeof event.delta === 'string' && event.delta) {
              frames += sseFrame({ data: JSON.stringify(chunk({ content: event.delta })) });
              sent += event.delta;
            }
            if (event.final) {
              if (frames) await stream.write(frames);
              break relay;
            }
          }
          if (frames) await stream.write(frames);
        }
      } catch (error) {
        // The bus failed (Redis down): the run's end comes from the database, and what the stream
        // had not sent of its answer follows in one chunk.
        if (controller.signal.aborted || !deps.runFinishes) throw error;
        const ended = await deps.runFinishes.wait(started.run.id, controller.signal);
        if (!ended) return;
        const text = replyText(await listRunMessages(deps.db, tenantId, started.run.id));
        if (text.startsWith(sent) && text.length > sent.length) await send(chunk({ content: text.slice(sent.length) }));
      }
      if (controller.signal.aborted) return;
      const run = (await getRun(deps.db, tenantId, started.run.id)) ?? started.run;
      if (run.status !== 'completed') return void (await send(openAiErrorBody(runError(run))));
      await send(chunk({}, finishReason(run)));
      if (body.stream_options?.include_usage) await send({ ...meta, choices: [], usage: usageOf(run) });
      await stream.writeSSE({ data: '[DONE]' });
    } finally {
      clearInterval(heartbeat);
    }
  });
}
