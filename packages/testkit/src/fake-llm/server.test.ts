import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from './server.ts';
import type { FakeLlmServer, FakeRequest } from './types.ts';

let fake: FakeLlmServer;
let openai: OpenAI;
let anthropic: Anthropic;

const chat = (content = 'Hi') =>
  openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }] });
const message = (content = 'Hi') =>
  anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content }] });

beforeAll(async () => {
  fake = await startFakeLlm();
  // Default retries on purpose: the fake must stop the SDKs from retrying its own script errors.
  openai = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake' });
  anthropic = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: 'fake' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('fake LLM server', () => {
  it('exposes its URLs', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fake.openaiBaseUrl).toBe(`${fake.url}/v1`);
    expect(fake.anthropicBaseUrl).toBe(fake.url);
  });

  it('answers 500 with a clear message when the script is empty, without SDK retries', async () => {
    const openaiError = await chat().catch((e: unknown) => e);
    expect(openaiError).toBeInstanceOf(OpenAI.InternalServerError);
    expect((openaiError as Error).message).toMatch(/script is empty/);
    const anthropicError = await message().catch((e: unknown) => e);
    expect(anthropicError).toBeInstanceOf(Anthropic.InternalServerError);
    expect((anthropicError as Error).message).toMatch(/script is empty/);
    expect(fake.requests).toHaveLength(2);
  });

  it('consumes one turn per request, FIFO, whatever the protocol', async () => {
    fake.enqueue({ type: 'reply', text: 'one' }, { type: 'reply', text: 'two' }, { type: 'reply', text: 'three' });
    expect(fake.pending()).toBe(3);
    expect((await chat()).choices[0]?.message.content).toBe('one');
    expect((await message()).content).toEqual([{ type: 'text', text: 'two' }]);
    expect(fake.pending()).toBe(1);
    expect((await chat()).choices[0]?.message.content).toBe('three');
    expect(fake.pending()).toBe(0);
    expect(fake.requests.map((r) => r.protocol)).toEqual(['openai', 'anthropic', 'openai']);
  });

  it('falls back to the responder when the queue is empty, queued turns first', async () => {
    const seen: FakeRequest[] = [];
    fake.setResponder(async (req) => {
      seen.push(req);
      return { type: 'reply', text: `responder for ${req.protocol}` };
    });
    fake.enqueue({ type: 'reply', text: 'queued' });
    expect((await chat()).choices[0]?.message.content).toBe('queued');
    expect((await chat()).choices[0]?.message.content).toBe('responder for openai');
    expect((await message()).content).toEqual([{ type: 'text', text: 'responder for anthropic' }]);
    expect(seen).toHaveLength(2);
    fake.setResponder(undefined);
    await expect(chat()).rejects.toThrow(/script is empty/);
  });

  it('takes a responder from the options', async () => {
    const other = await startFakeLlm({ responder: () => ({ type: 'reply', text: 'from options' }) });
    try {
      const client = new OpenAI({ baseURL: other.openaiBaseUrl, apiKey: 'fake' });
      const completion = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(completion.choices[0]?.message.content).toBe('from options');
    } finally {
      await other.close();
    }
  });

  it('answers 500 when the responder throws, and keeps serving', async () => {
    fake.setResponder(() => {
      throw new Error('responder bug');
    });
    await expect(chat()).rejects.toThrow(/responder bug/);
    fake.enqueue({ type: 'reply', text: 'still alive' });
    expect((await chat()).choices[0]?.message.content).toBe('still alive');
  });

  it('reset clears queue, responder and requests, keeping the same requests array', async () => {
    const requests = fake.requests;
    fake.enqueue({ type: 'reply', text: 'a' }, { type: 'reply', text: 'b' });
    fake.setResponder(() => ({ type: 'reply', text: 'r' }));
    await chat();
    fake.reset();
    expect(fake.pending()).toBe(0);
    expect(requests).toHaveLength(0);
    await expect(chat()).rejects.toThrow(/script is empty/);
    expect(requests).toHaveLength(1);
  });

  it('waits delayMs before answering', async () => {
    fake.enqueue({ type: 'reply', text: 'late', delayMs: 150 });
    const started = Date.now();
    await chat();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('sends what onTextPiece makes of each streamed text piece, on both wires', async () => {
    const seen: string[] = [];
    const onTextPiece = (piece: string) => {
      seen.push(piece);
      return piece.toUpperCase();
    };
    fake.enqueue(
      { type: 'reply', text: 'abcdefgh', chunkSize: 3, onTextPiece },
      { type: 'reply', text: 'ijklmn', chunkSize: 3, onTextPiece },
    );
    const pieces: string[] = [];
    const stream = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta.content ?? '');
    expect(pieces.filter(Boolean)).toEqual(['ABC', 'DEF', 'GH']);
    const text = await anthropic.messages
      .stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
      .finalText();
    expect(text).toBe('IJKLMN');
    expect(seen).toEqual(['abc', 'def', 'gh', 'ijk', 'lmn']);
  });

  it('calls onTextPiece as each piece is written: pieces never written (client gone) are never made', async () => {
    let made = 0;
    const onTextPiece = (piece: string) => {
      made++;
      return piece;
    };
    fake.enqueue({ type: 'reply', text: 'z'.repeat(40), chunkSize: 4, chunkDelayMs: 200, onTextPiece });
    const stream = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) break;
    // The fake notices the abort during its next pause; give it that moment, then nothing more is made.
    await new Promise((done) => setTimeout(done, 300));
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThan(10);
  });

  it('survives a client that aborts mid-stream and keeps serving', async () => {
    fake.enqueue({ type: 'reply', text: 'x'.repeat(400), chunkSize: 4, chunkDelayMs: 10 });
    const stream = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let received = 0;
    for await (const _chunk of stream) if (++received === 3) break;
    expect(received).toBe(3);

    fake.enqueue({ type: 'reply', text: 'y'.repeat(400), chunkSize: 4, chunkDelayMs: 10 });
    const anthropicStream = anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    anthropicStream.on('text', () => anthropicStream.abort());
    await anthropicStream.done().catch(() => undefined);

    fake.enqueue({ type: 'reply', text: 'after aborts' });
    expect((await chat()).choices[0]?.message.content).toBe('after aborts');
  });

  it('survives a client that gives up during delayMs', async () => {
    fake.enqueue({ type: 'reply', text: 'too late', delayMs: 500 });
    await expect(
      openai.chat.completions.create(
        { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] },
        { timeout: 50, maxRetries: 0 },
      ),
    ).rejects.toThrow();
    fake.enqueue({ type: 'reply', text: 'fine' });
    expect((await chat()).choices[0]?.message.content).toBe('fine');
  });

  it('answers unknown routes 404 and non-JSON bodies 400 in the protocol shape, without recording them', async () => {
    const notFound = await fetch(`${fake.url}/v1/images/generations`, { method: 'POST', body: '{}' });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    const badJson = await fetch(`${fake.url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('records every model request with path, headers, body and stream flag', async () => {
    fake.enqueue({ type: 'reply', text: 'a' }, { type: 'reply', text: 'b' });
    await chat('first');
    const stream = anthropic.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'second' }],
    });
    await stream.finalMessage();
    expect(fake.requests.map((r) => [r.protocol, r.path, r.stream])).toEqual([
      ['openai', '/v1/chat/completions', false],
      ['anthropic', '/v1/messages', true],
    ]);
    expect(fake.requests[1]?.body).toMatchObject({ model: 'claude-test', stream: true });
    expect(fake.requests[0]?.headers['content-type']).toContain('application/json');
  });
});
