import { describe, expect, it } from 'vitest';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { type Loose, mutated } from './test-support/base-config.ts';
import { fillWebhookHeaders, webhookHeaderSecrets } from './webhooks.ts';

const hook = (extra: Loose = {}): Loose => ({
  url: 'https://hooks.example.com/agentry',
  events: ['run.completed'],
  signing_secret: 'HOOK_SECRET',
  ...extra,
});
const withHooks = (...hooks: Loose[]) => mutated((c) => (c.webhooks = hooks));

const valid: Array<[string, Loose]> = [
  ['one webhook', withHooks(hook())],
  [
    'every option, every event, several webhooks',
    withHooks(
      hook({
        events: ['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out', 'run.waiting'],
        headers: { Authorization: 'Bearer {{secrets.HOOK_TOKEN}}', 'X-Source': 'agentry' },
        enabled: false,
      }),
      hook({ url: 'http://10.0.0.5:8080/hooks?team=a', events: ['run.waiting'], signing_secret: '_S2' }),
    ),
  ],
  ['no webhooks', withHooks()],
];

type Case = [name: string, input: Loose, path: string, code: string];
const invalid: Case[] = [
  ['not a list', mutated((c) => (c.webhooks = hook())), '/webhooks', 'wrong_type'],
  ['without url', withHooks(hook({ url: undefined })), '/webhooks/0/url', 'missing_key'],
  ['ftp url', withHooks(hook({ url: 'ftp://files.example.com/x' })), '/webhooks/0/url', 'invalid_url'],
  ['relative url', withHooks(hook({ url: '/hooks' })), '/webhooks/0/url', 'invalid_url'],
  ['javascript url', withHooks(hook({ url: 'javascript:alert(1)' })), '/webhooks/0/url', 'invalid_url'],
  [
    'url with credentials',
    withHooks(hook({ url: 'https://u:p@hooks.example.com/' })),
    '/webhooks/0/url',
    'invalid_url',
  ],
  ['url with fragment', withHooks(hook({ url: 'https://hooks.example.com/#x' })), '/webhooks/0/url', 'invalid_url'],
  ['empty url', withHooks(hook({ url: '' })), '/webhooks/0/url', 'empty_value'],
  ['unknown event', withHooks(hook({ events: ['run.finished'] })), '/webhooks/0/events/0', 'invalid_value'],
  ['no events', withHooks(hook({ events: [] })), '/webhooks/0/events', 'too_few'],
  [
    'an event twice',
    withHooks(hook({ events: ['run.failed', 'run.failed'] })),
    '/webhooks/0/events',
    'duplicate_value',
  ],
  [
    'without signing_secret',
    withHooks(hook({ signing_secret: undefined })),
    '/webhooks/0/signing_secret',
    'missing_key',
  ],
  [
    'a secret value, not a name',
    withHooks(hook({ signing_secret: 'whsec_abc+/=' })),
    '/webhooks/0/signing_secret',
    'invalid_format',
  ],
  [
    'secret name with a dot',
    withHooks(hook({ signing_secret: 'secrets.X' })),
    '/webhooks/0/signing_secret',
    'invalid_format',
  ],
  ['misspelt key', withHooks(hook({ event: ['run.failed'] })), '/webhooks/0/event', 'unknown_key'],
  ['enabled not a boolean', withHooks(hook({ enabled: 'yes' })), '/webhooks/0/enabled', 'wrong_type'],
  [
    'signature header overridden',
    withHooks(hook({ headers: { 'Webhook-Signature': 'v1,forged' } })),
    '/webhooks/0/headers/Webhook-Signature',
    'header_not_allowed',
  ],
  ['host header', withHooks(hook({ headers: { Host: 'internal' } })), '/webhooks/0/headers/Host', 'header_not_allowed'],
  [
    'a tool-style placeholder in a header',
    withHooks(hook({ headers: { 'X-User': '{{context.userId}}' } })),
    '/webhooks/0/headers/X-User',
    'invalid_placeholder',
  ],
  ['bad header name', withHooks(hook({ headers: { 'X Bad': 'v' } })), '/webhooks/0/headers/X Bad', 'invalid_name'],
  ['eleven webhooks', withHooks(...Array.from({ length: 11 }, () => hook())), '/webhooks', 'too_many'],
];

describe('agent config webhooks', () => {
  it.each(valid)('accepts %s', (_name, input) => {
    const result = checkAgentConfig(input);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it.each(invalid)('reports %s', (_name, input, path, code) => {
    const result = checkAgentConfig(input);
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues.map((i) => [i.path, i.code])).toContainEqual([path, code]);
    // Only the broken webhook field is reported: the rest of the base config stays valid.
    expect(issues.every((i) => i.path.startsWith('/webhooks'))).toBe(true);
  });

  it('reports every broken webhook at once', () => {
    const input = withHooks(hook({ url: 'ftp://x' }), hook({ events: ['nope'], signing_secret: '1X' }));
    expect(() => loadAgentConfig(input)).toThrow();
    const result = checkAgentConfig(input);
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([
      '/webhooks/0/url',
      '/webhooks/1/events/0',
      '/webhooks/1/signing_secret',
    ]);
  });

  it('suggests the event meant', () => {
    const result = checkAgentConfig(withHooks(hook({ events: ['run.complete'] })));
    expect(result.ok ? undefined : result.issues[0]?.hint).toContain('run.completed');
  });

  it('fills only secret placeholders in headers', () => {
    const headers = { Authorization: 'Bearer {{ secrets.T }}', 'X-Both': '{{secrets.A}}-{{secrets.T}}' };
    expect(webhookHeaderSecrets(headers).sort()).toEqual(['A', 'T']);
    expect(fillWebhookHeaders(headers, { T: 'tok', A: 'a' })).toEqual({
      Authorization: 'Bearer tok',
      'X-Both': 'a-tok',
    });
  });
});
