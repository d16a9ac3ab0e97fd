import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, startHarness } from '../test-support/harness.ts';

describe('POST /v1/agents/flows/trigger-test', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  const test = (body: unknown) => call(h, 'POST', '/v1/agents/flows/trigger-test', { key, body });

  it('names the first pattern that matches, as a run would (RE2, (?i) flags)', async () => {
    const patterns = ['(?i)\\b(leave|time off) request\\b', '请假'];
    const hit = await test({ patterns, text: 'I want to make a LEAVE request' });
    expect([hit.status, hit.json]).toEqual([200, { matches: true, pattern: patterns[0] }]);
    expect((await test({ patterns, text: '我想请假' })).json).toEqual({ matches: true, pattern: '请假' });
    expect((await test({ patterns, text: 'What is my leave balance?' })).json).toEqual({ matches: false });
    expect((await test({ patterns: [], text: 'anything' })).json).toEqual({ matches: false });
  });

  it('refuses a pattern RE2 cannot run with a 422 naming it, and a malformed body', async () => {
    const bad = await test({ patterns: ['ok', '(?=look-ahead)'], text: 'x' });
    expect([bad.status, bad.type, bad.json.code]).toEqual([422, 'application/problem+json', 'validation_failed']);
    expect(bad.json.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['/patterns/1', 'unsupported_pattern'],
    ]);
    expect((await test({ patterns: ['a'], text: '' })).status).toBe(422);
    expect((await test({ patterns: ['a'], text: 'a', extra: 1 })).status).toBe(422);
  });

  it('needs the agents scope', async () => {
    const res = await call(h, 'POST', '/v1/agents/flows/trigger-test', { body: { patterns: ['a'], text: 'a' } });
    expect(res.status).toBe(401);
  });
});
