import { describe, expect, it } from 'vitest';
import { filterParams, parseRoute, type Route, routeHref } from './routes.ts';

describe('hash routes', () => {
  it.each<Route>([
    { name: 'agents' },
    { name: 'new-agent' },
    { name: 'agent', id: 'a1', tab: 'settings' },
    { name: 'agent', id: 'a1', tab: 'versions' },
    { name: 'agent', id: 'a1', tab: 'tests' },
    { name: 'agent', id: 'a1', tab: 'tests', testId: 'new' },
    { name: 'agent', id: 'a1', tab: 'tests', testId: '0b6c…' },
    { name: 'agent', id: 'a1', tab: 'tests', testRunId: 'r 1' },
    { name: 'conversations' },
    { name: 'conversations', agentId: 'a1' },
    { name: 'conversation', id: 'c1' },
    { name: 'conversations', agentId: 'a1', q: 'refund 100%', from: '2026-05-01', to: '2026-05-31' },
    { name: 'conversations', status: 'failed', hasError: true },
    { name: 'conversations', hasError: false },
    { name: 'usage' },
    { name: 'usage', agentId: 'a1', days: 7 },
    { name: 'knowledge' },
    { name: 'knowledge-base', id: 'kb 1/2' },
    { name: 'settings', tab: 'keys' },
    { name: 'settings', tab: 'widget' },
    { name: 'settings', tab: 'handoff' },
    { name: 'inbox' },
    { name: 'inbox', id: 'c 1/x' },
    { name: 'accept-invitation', token: 'tok_a+b/c=' },
    { name: 'forgot-password' },
    { name: 'reset-password', token: 'pwr_a+b/c=' },
    { name: 'confirm-email', token: 'vfy_x' },
  ])('round-trips %o', (route) => {
    expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it('falls back to the agents list', () => {
    expect(parseRoute('')).toEqual({ name: 'agents' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'agents' });
    expect(parseRoute('#/agents/a1/bogus')).toEqual({ name: 'agent', id: 'a1', tab: 'settings' });
    expect(parseRoute('#/settings/nope')).toEqual({ name: 'settings', tab: 'keys' });
    expect(parseRoute('#/conversations?has_error=maybe&status=')).toEqual({ name: 'conversations' });
  });

  it("writes filters with the API's parameter names", () => {
    expect(filterParams({ agentId: 'a1', hasError: true, q: 'x' }).toString()).toBe('agent_id=a1&q=x&has_error=true');
  });
});
