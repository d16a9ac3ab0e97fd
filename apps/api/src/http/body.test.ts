import { isAppError } from '@agentry/errors';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonDepthExceeds, MAX_JSON_DEPTH, readJson } from './body.ts';

/** A route that reads `{ name, tags }` and answers the error's code and issues when it fails. */
function app() {
  const schema = z.object({ name: z.string(), tags: z.array(z.string()).optional() });
  const hono = new Hono();
  hono.post('/', async (c) => c.json(await readJson(c, schema)));
  hono.onError((error, c) =>
    isAppError(error)
      ? c.json({ code: error.code, issues: error.issues }, error.status as 400)
      : c.text('unexpected', 500),
  );
  return hono;
}

const post = (body: string) =>
  app().request('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('readJson', () => {
  it('refuses NUL characters in strings and keys, naming each place, before the schema', async () => {
    const res = await post('{"name":"a\\u0000","tags":["ok","b\\u0000"],"x\\u0000/y":1}');
    expect(await res.json()).toEqual({
      code: 'validation_failed',
      issues: ['/name', '/tags/1', '/x\u0000~1y'].map((path) => ({
        path,
        code: 'nul_character',
        message: 'Contains a NUL character (\\u0000), which cannot be stored',
      })),
    });
  });

  it('accepts the text "\\u0000" itself and other control characters', async () => {
    const res = await post('{"name":"\\\\u0000 \\t\\u0001"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: '\\u0000 \t\u0001' });
  });

  it('refuses lone surrogates in strings and keys, and numbers that overflow to Infinity, naming each place', async () => {
    const res = await post(
      '{"name":"a\\ud800","tags":["\\udfff x","\\ud83d\\ude00"],"k\\udc00":1,"n":[1e400,-1e999,1e308]}',
    );
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.code).toBe('validation_failed');
    expect(body.issues.map((i: { path: string; code: string }) => [i.path, i.code])).toEqual([
      ['/name', 'lone_surrogate'],
      ['/tags/0', 'lone_surrogate'],
      ['/k\ufffd', 'lone_surrogate'],
      ['/n/0', 'non_finite_number'],
      ['/n/1', 'non_finite_number'],
    ]);
  });

  it('refuses nesting deeper than MAX_JSON_DEPTH before parsing, and accepts exactly that depth', async () => {
    const nested = (levels: number) => `{"name":"x","tags":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const deep = await post(nested(MAX_JSON_DEPTH + 1));
    expect([deep.status, (await deep.json()).code]).toEqual([400, 'json_too_deep']);
    const hostile = await post(nested(100_000));
    expect([hostile.status, (await hostile.json()).code]).toEqual([400, 'json_too_deep']);
    // At the limit it reaches the schema (which wants strings in `tags`).
    const atLimit = await post(nested(MAX_JSON_DEPTH));
    expect([atLimit.status, (await atLimit.json()).code]).toEqual([422, 'validation_failed']);
  });

  it('refuses a body that is not UTF-8, or not sent as JSON', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const res = await app().request('/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bytes,
    });
    expect([res.status, (await res.json()).code]).toEqual([400, 'invalid_json']);
    const text = await app().request('/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect([text.status, (await text.json()).code]).toEqual([400, 'unsupported_media_type']);
  });
});

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays, not brackets inside strings or after escaped quotes', () => {
    expect(jsonDepthExceeds('1', 0)).toBe(false);
    expect(jsonDepthExceeds('{}', 0)).toBe(true);
    expect(jsonDepthExceeds('{"a":[{}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{}]}', 2)).toBe(true);
    expect(jsonDepthExceeds('["[[[[", "\\"[[[[", "\\\\", []]', 2)).toBe(false);
    expect(jsonDepthExceeds('["\\\\"[[]]', 2)).toBe(true);
    expect(jsonDepthExceeds('[][][][]', 1)).toBe(false);
  });
});
