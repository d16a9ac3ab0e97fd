import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import {
  compilePermissions,
  DEFAULT_DENY_MESSAGE,
  type PermissionDecision,
  patternCanMatchPrefixed,
  toolPatternMatches,
} from './permissions.ts';
import { type Loose, mutated } from './test-support/base-config.ts';

/** The obvious implementation the matcher must agree with: the pattern as an anchored regular expression. */
function referenceMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

// Small alphabets make overlaps (and so the tricky cases of the greedy scan) frequent.
const nameArb = fc.string({ unit: fc.constantFrom('a', 'b', '_'), maxLength: 10 });
const patternArb = fc.string({ unit: fc.constantFrom('a', 'b', '_', '*'), maxLength: 8 });

describe('toolPatternMatches', () => {
  it('matches names exactly, and * as any run of characters', () => {
    expect(toolPatternMatches('refund_order', 'refund_order')).toBe(true);
    expect(toolPatternMatches('refund_order', 'refund_orders')).toBe(false);
    expect(toolPatternMatches('refund_*', 'refund_order')).toBe(true);
    expect(toolPatternMatches('refund_*', 'refund_')).toBe(true);
    expect(toolPatternMatches('refund_*', 'order_refund')).toBe(false);
    expect(toolPatternMatches('crm__*', 'crm__search')).toBe(true);
    expect(toolPatternMatches('*', 'anything')).toBe(true);
    expect(toolPatternMatches('*_delete_*', 'crm_delete_user')).toBe(true);
    expect(toolPatternMatches('a*a', 'a')).toBe(false);
  });

  it('agrees with a regular-expression reference on generated names and patterns', () => {
    fc.assert(
      fc.property(patternArb, nameArb, (pattern, name) => {
        expect(toolPatternMatches(pattern, name)).toBe(referenceMatches(pattern, name));
      }),
      { numRuns: 3000 },
    );
  });

  it('patternCanMatchPrefixed is true exactly when some name past the prefix matches', () => {
    fc.assert(
      fc.property(
        patternArb,
        fc.string({ unit: fc.constantFrom('a', 'b', '_'), minLength: 1, maxLength: 4 }),
        (pattern, prefix) => {
          // Any matching name past the prefix can be shortened to one built from the pattern's own
          // segments, so searching short suffixes over the same alphabet is a complete reference.
          const suffixes = fc.sample(
            fc.string({ unit: fc.constantFrom('a', 'b', '_'), minLength: 1, maxLength: 8 }),
            300,
          );
          const literal = pattern.replaceAll('*', '');
          const candidates = [...suffixes, literal, `${literal}a`, ...pattern.split('*')];
          const some = candidates.some((s) => s.length > 0 && toolPatternMatches(pattern, prefix + s));
          if (some) expect(patternCanMatchPrefixed(pattern, prefix)).toBe(true);
          if (!patternCanMatchPrefixed(pattern, prefix)) expect(some).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
    expect(patternCanMatchPrefixed('crm__*', 'crm__')).toBe(true);
    expect(patternCanMatchPrefixed('cr*', 'crm__')).toBe(true);
    expect(patternCanMatchPrefixed('crm__search', 'crm__')).toBe(true);
    expect(patternCanMatchPrefixed('crm__', 'crm__')).toBe(false);
    expect(patternCanMatchPrefixed('billing__*', 'crm__')).toBe(false);
  });
});

describe('compilePermissions', () => {
  const decide = compilePermissions([
    { tool: 'refund_*', when: { properties: { amount: { minimum: 1000 } }, required: ['amount'] }, action: 'ask' },
    { tool: 'delete_*', action: 'deny', message: 'Deleting is not allowed here.' },
    { tool: 'refund_*', action: 'allow' },
  ]);

  it('the first matching rule decides; no match falls back to the tool’s own approval', () => {
    expect(decide('refund_order', { amount: 5000 }, 'allow')).toEqual({
      action: 'ask',
      rule: { index: 0, tool: 'refund_*', message: DEFAULT_DENY_MESSAGE },
    });
    // `when` rejects 50: the next rule (allow) decides, even over the tool's approval: always.
    expect(decide('refund_order', { amount: 50 }, 'ask').action).toBe('allow');
    expect(decide('delete_user', {}, 'allow')).toEqual({
      action: 'deny',
      rule: { index: 1, tool: 'delete_*', message: 'Deleting is not allowed here.' },
    });
    expect(decide('lookup', {}, 'ask')).toEqual({ action: 'ask' });
    expect(decide('lookup', {}, 'allow')).toEqual({ action: 'allow' });
  });

  it('equals a straightforward reference on generated rules, names and arguments', () => {
    const ruleArb = fc.record({
      tool: patternArb.filter((p) => p.length > 0),
      action: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const),
      threshold: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
    });
    const argsArb = fc.dictionary(
      fc.constantFrom('amount', 'note'),
      fc.oneof(fc.integer({ min: -8, max: 8 }), fc.string()),
    );
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 6 }),
        nameArb,
        argsArb,
        fc.constantFrom('allow' as const, 'ask' as const),
        (rules, name, args, fallback) => {
          const config = rules.map((r) => ({
            tool: r.tool,
            action: r.action,
            ...(r.threshold === undefined
              ? {}
              : { when: { properties: { amount: { minimum: r.threshold } }, required: ['amount'] } }),
          }));
          const expected: PermissionDecision['action'] =
            rules.find(
              (r) =>
                referenceMatches(r.tool, name) &&
                (r.threshold === undefined ||
                  ('amount' in args && (typeof args.amount !== 'number' || args.amount >= r.threshold))),
            )?.action ?? fallback;
          expect(compilePermissions(config)(name, args, fallback).action).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('permissions in a config', () => {
  const withRules = (rules: unknown[], change?: (c: Loose) => void) =>
    mutated((c) => {
      c.permissions = rules;
      change?.(c);
    });
  const issuesOf = (doc: unknown) => {
    const result = checkAgentConfig(doc);
    return result.ok ? [] : result.issues.map((i) => [i.path, i.code]);
  };

  it('accepts rules for HTTP, client and MCP tools and skills, by name or pattern', () => {
    const doc = withRules(
      [
        { tool: 'save', when: { properties: { age: { minimum: 18 } } }, action: 'ask' },
        { tool: 'sa*', action: 'deny', message: 'No.' },
        { tool: 'crm__*', action: 'ask' },
        { tool: 'docs__search', action: 'deny' },
        { tool: 'skill__*', action: 'allow' },
        { tool: 'pick_*', action: 'deny' },
        { tool: '*', when: { required: ['email'] }, action: 'ask' },
      ],
      (c) => {
        c.mcp_servers = [
          { name: 'crm', url: 'https://mcp.example.com/crm' },
          { name: 'docs', url: 'https://mcp.example.com/docs', tools: ['search'] },
        ];
        c.skills = [{ name: 'billing', description: 'Billing questions', basic_settings: { name: 'Bill' } }];
        c.tools.push({ name: 'pick_date', description: 'Ask the user for a date', type: 'client' });
      },
    );
    expect(issuesOf(doc)).toEqual([]);
  });

  it('refuses a pattern that matches no tool, naming /permissions/N/tool', () => {
    const doc = withRules(
      [
        { tool: 'save', action: 'ask' },
        { tool: 'refund_*', action: 'deny' },
        { tool: 'docs__delete', action: 'deny' },
      ],
      (c) => {
        c.mcp_servers = [{ name: 'docs', url: 'https://mcp.example.com/docs', tools: ['search'] }];
      },
    );
    const result = checkAgentConfig(doc);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.path, i.code])).toEqual([
      ['/permissions/1/tool', 'unknown_tool'],
      ['/permissions/2/tool', 'unknown_tool'],
    ]);
    expect(result.issues[0]!.message).toBe('permission rule 2 is for `refund_*`, which matches no tool of this agent');
  });

  it('refuses a `when` that is not a safe JSON Schema, a bad action and a bad pattern', () => {
    expect(issuesOf(withRules([{ tool: 'save', when: { minimum: 'x' }, action: 'ask' }]))).toEqual([
      ['/permissions/0/when/minimum', 'wrong_type'],
    ]);
    expect(
      issuesOf(withRules([{ tool: 'save', when: { properties: { a: { pattern: '(?=x)' } } }, action: 'ask' }])),
    ).toEqual([['/permissions/0/when/properties/a/pattern', 'unsupported_pattern']]);
    expect(issuesOf(withRules([{ tool: 'save', when: { not: { pattern: '(?!x)' } }, action: 'ask' }]))).toEqual([
      ['/permissions/0/when/not/pattern', 'unsupported_pattern'],
    ]);
    expect(issuesOf(withRules([{ tool: 'save', when: { $ref: '#/$defs/nope' }, action: 'ask' }]))).toEqual([
      ['/permissions/0/when/$ref', 'unknown_ref'],
    ]);
    expect(issuesOf(withRules([{ tool: 'save', when: { nope: 1 }, action: 'ask' }]))).toEqual([
      ['/permissions/0/when/nope', 'unknown_key'],
    ]);
    expect(issuesOf(withRules([{ tool: 'save', action: 'block' }]))).toEqual([
      ['/permissions/0/action', 'invalid_value'],
    ]);
    expect(issuesOf(withRules([{ tool: 'save' }]))).toEqual([['/permissions/0/action', 'missing_key']]);
    expect(issuesOf(withRules([{ tool: 'save tool', action: 'deny' }]))).toEqual([
      ['/permissions/0/tool', 'invalid_format'],
    ]);
  });

  it('the compiled agent decides with its rules, then the tool’s own approval, with defaults filled in', () => {
    const doc = withRules(
      [{ tool: 'save', when: { properties: { age: { minimum: 18 } }, required: ['age'] }, action: 'deny' }],
      (c) => {
        c.tools[0].parameters.properties.age.default = 30;
        c.tools.push({
          name: 'pick_date',
          description: 'Ask for a date',
          type: 'client',
          approval: 'always',
        });
      },
    );
    const { config, hash } = loadAgentConfig(doc);
    const agent = compileAgent(config, hash);
    expect(agent.decidePermission('save', { email: 'a@b.co', age: 20 }).action).toBe('deny');
    expect(agent.decidePermission('save', { email: 'a@b.co' }).action).toBe('deny');
    expect(agent.decidePermission('save', { email: 'a@b.co', age: 10 }).action).toBe('allow');
    expect(agent.decidePermission('pick_date', {}).action).toBe('ask');
    // `not` (the dashboard's ≠): a rule for every email but one.
    const other = loadAgentConfig(
      withRules([{ tool: 'save', when: { properties: { email: { not: { const: 'ok@b.co' } } } }, action: 'deny' }]),
    );
    const decideOther = compileAgent(other.config, other.hash).decidePermission;
    expect(decideOther('save', { email: 'ok@b.co' }).action).toBe('allow');
    expect(decideOther('save', { email: 'no@b.co' }).action).toBe('deny');
    expect(agent.decidePermission('crm__x', {}).action).toBe('allow');
  });
});
