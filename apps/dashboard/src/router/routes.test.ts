import { describe, expect, it } from 'vitest';
import { parseRoute, type Route, routeHref } from './routes.ts';

describe('hash routes', () => {
  it.each<Route>([
    { name: 'agents' },
    { name: 'new-agent' },
    { name: 'agent', id: 'a1', tab: 'settings' },
    { name: 'agent', id: 'a1', tab: 'versions' },
    { name: 'conversations' },
    { name: 'conversations', agentId: 'a1' },
    { name: 'conversation', id: 'c1' },
  ])('round-trips %o', (route) => {
    expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it('falls back to the agents list', () => {
    expect(parseRoute('')).toEqual({ name: 'agents' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'agents' });
    expect(parseRoute('#/agents/a1/bogus')).toEqual({ name: 'agent', id: 'a1', tab: 'settings' });
  });
});
