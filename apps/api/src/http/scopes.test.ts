import { describe, expect, it } from 'vitest';
import {
  hasScope,
  originAllowed,
  publishableMayCall,
  roleMayCall,
  scopeFor,
  scopesForRole,
  uncoveredScopes,
  validOriginPattern,
} from './scopes.ts';

describe('scopes and origins', () => {
  it('covers a key only with every scope it has, `*` only with `*`', () => {
    expect(uncoveredScopes(['api-keys:write'], ['*'])).toEqual(['*']);
    expect(uncoveredScopes(['*'], ['*', 'agents:read'])).toEqual([]);
    expect(uncoveredScopes(['agents:read', 'api-keys:write'], ['agents:read', 'secrets:read'])).toEqual([
      'secrets:read',
    ]);
    expect(uncoveredScopes(['agents:read'], [])).toEqual([]);
  });

  it('derives the scope from the route', () => {
    expect(scopeFor('GET', '/v1/agents/1/versions')).toBe('agents:read');
    expect(scopeFor('POST', '/v1/chat/completions')).toBe('chat:write');
    expect(scopeFor('DELETE', '/v1/secrets/X')).toBe('secrets:write');
    // Importing tools edits agents: the agents scope, not a scope of its own.
    expect(scopeFor('POST', '/v1/tools/import')).toBe('agents:write');
    expect(hasScope(['agents:read'], 'agents:read')).toBe(true);
    expect(hasScope(['agents:read'], 'agents:write')).toBe(false);
    expect(hasScope(['*'], 'secrets:write')).toBe(true);
  });

  it('lets publishable keys only chat', () => {
    expect(publishableMayCall('POST', '/v1/conversations/abc/messages')).toBe(true);
    expect(publishableMayCall('GET', '/v1/runs/abc/events')).toBe(true);
    expect(publishableMayCall('GET', '/v1/agents')).toBe(false);
    expect(publishableMayCall('DELETE', '/v1/conversations/abc')).toBe(false);
    expect(publishableMayCall('PUT', '/v1/secrets/X')).toBe(false);
  });

  it.each([
    ['https://shop.example.com', ['https://shop.example.com'], true],
    ['https://shop.example.com', ['https://*.example.com'], true],
    ['https://a.b.example.com', ['https://*.example.com'], true],
    ['https://example.com', ['https://*.example.com'], false],
    ['https://evilexample.com', ['https://*.example.com'], false],
    ['https://example.com.evil.io', ['https://*.example.com'], false],
    ['http://shop.example.com', ['https://shop.example.com'], false],
    ['https://shop.example.com:8443', ['https://shop.example.com'], false],
    ['http://localhost:5173', ['http://localhost:5173'], true],
    ['null', ['https://shop.example.com'], false],
  ])('origin %s against %j → %s', (origin, allowed, expected) => {
    expect(originAllowed(origin, allowed)).toBe(expected);
  });

  it('validates origin patterns', () => {
    expect(validOriginPattern('https://*.example.com')).toBe(true);
    expect(validOriginPattern('http://localhost:3000')).toBe(true);
    expect(validOriginPattern('https://example.com/path')).toBe(false);
    expect(validOriginPattern('*.example.com')).toBe(false);
    expect(validOriginPattern('javascript://x')).toBe(false);
  });

  it('maps dashboard roles to scopes', () => {
    const may = (role: 'owner' | 'editor' | 'viewer', method: string, path: string) =>
      roleMayCall(role, method, path, 'me');
    expect(scopesForRole('owner')).toEqual(['*']);
    expect(may('editor', 'POST', '/v1/agents')).toBe(true);
    expect(may('editor', 'PUT', '/v1/secrets/X')).toBe(true);
    expect(may('editor', 'POST', '/v1/chat/completions')).toBe(true);
    expect(may('editor', 'GET', '/v1/audit-events')).toBe(true);
    expect(may('editor', 'POST', '/v1/api-keys')).toBe(false);
    expect(may('editor', 'PATCH', '/v1/members/other')).toBe(false);
    expect(may('editor', 'POST', '/v1/invitations')).toBe(false);
    expect(may('viewer', 'GET', '/v1/members')).toBe(true);
    expect(may('viewer', 'POST', '/v1/conversations')).toBe(false);
    // Anyone may leave; nobody else's membership.
    expect(may('viewer', 'DELETE', '/v1/members/me')).toBe(true);
    expect(may('viewer', 'DELETE', '/v1/members/other')).toBe(false);
    expect(may('viewer', 'PATCH', '/v1/members/me')).toBe(false);
  });
});
