import { isAppError } from '@agentry/errors';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJson } from './body.ts';

/** A route that reads `{ name, tags }` and answers the error's code and issues when it fails. */
function app() {
  const schema = z.object({ name: z.string(), tags: z.array(z.string()).optional() });
  const hono = new Hono();
  hono.post('/', async (c) => c.json(await readJson(c, schema)));
  hono.onError((error, c) =>
    isAppError(error) ? c.json({ code: error.code, issues: error.issues }, 422) : c.text('unexpected', 500),
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
});
