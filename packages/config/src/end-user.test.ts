import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAgent } from './compile-agent.ts';
import type { EndUserValues, ToolContext } from './compiled-agent.ts';
import { endUserValues, MAX_END_USER_CLAIM_CHARS } from './end-user-values.ts';
import { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
import { maskedValues, maskSecrets } from './mask-secrets.ts';

const future = () => Math.floor(Date.now() / 1000) + 600;
const user = (claims: EndUserValues['claims'], token?: string, expiresAt = future()): EndUserValues => ({
  claims,
  ...(token ? { token } : {}),
  expiresAt,
});

/** A one-tool agent reading the end user (declared `end_user`), its endpoint `endpoint`. */
function agentDoc(endpoint: Record<string, unknown>, endUser: Record<string, unknown> | null | undefined = undefined) {
  return {
    basic_settings: { name: 'T' },
    ...(endUser === undefined
      ? { end_user: { claims: ['email', 'org_id', 'admin', 'level'], forward_token: true } }
      : endUser === null
        ? {}
        : { end_user: endUser }),
    tools: [
      {
        name: 't',
        description: 'd',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
        endpoint,
      },
    ],
  };
}

function render(
  endpoint: Record<string, unknown>,
  ctx: Partial<ToolContext>,
  endUser?: Record<string, unknown> | null,
) {
  const { config, hash } = loadAgentConfig(agentDoc(endpoint, endUser));
  const tool = compileAgent(config, hash).tools[0]!;
  return tool.render({}, { context: {}, secrets: {}, ...ctx });
}

const issuesOf = (doc: unknown) => {
  const result = checkAgentConfig(doc);
  return result.ok ? [] : result.issues.map((i) => [i.path, i.code]);
};

describe('end_user: loading', () => {
  it('accepts declared claims and a forwarded token in every position', () => {
    const result = checkAgentConfig(
      agentDoc({
        url: 'https://api.example.com/orgs/{{user.org_id}}?e={{user.email}}',
        method: 'POST',
        headers: { Authorization: 'Bearer {{user.token}}' },
        query_params: { level: '{{user.level}}' },
        body: { admin: '{{user.admin}}', who: 'user {{lower user.email}}' },
      }),
    );
    expect(result.ok).toBe(true);
  });

  it('reports every undeclared claim, a token not forwarded and a user value without end_user, with their paths, at once', () => {
    const doc = agentDoc(
      {
        url: 'https://api.example.com/orgs/{{user.tenant}}',
        method: 'POST',
        headers: { Authorization: 'Bearer {{user.token}}' },
        body: { e: '{{user.mail}}', ok: '{{user.email}}' },
      },
      { claims: ['email'] },
    );
    expect(issuesOf(doc)).toEqual([
      ['/tools/0/endpoint/body/e', 'unknown_user_claim'],
      ['/tools/0/endpoint/headers/Authorization', 'user_token_not_forwarded'],
      ['/tools/0/endpoint/url', 'unknown_user_claim'],
    ]);
    const result = checkAgentConfig(doc);
    const mail = !result.ok && result.issues.find((i) => i.path === '/tools/0/endpoint/body/e');
    expect(mail ? mail.hint : undefined).toMatch(/email/);
    expect(issuesOf(agentDoc({ url: 'https://api.example.com/x?e={{user.email}}' }, null))).toEqual([
      ['/tools/0/endpoint/url', 'unknown_user_claim'],
    ]);
  });

  it('refuses a claim named token, bad claim names, and a `user` parameter beside {{user.…}}', () => {
    expect(issuesOf(agentDoc({ url: 'https://api.example.com/x' }, { claims: ['token', 'a b'] }))).toEqual([
      ['/end_user/claims/0', 'invalid_value'],
      ['/end_user/claims/1', 'invalid_format'],
    ]);
    const doc = agentDoc({ url: 'https://api.example.com/x?e={{user.email}}' }) as ReturnType<typeof agentDoc> & {
      tools: Array<{ parameters: { properties: Record<string, unknown> } }>;
    };
    doc.tools[0]!.parameters.properties.user = { type: 'string' };
    expect(issuesOf(doc)).toEqual([['/tools/0/parameters/properties/user', 'reserved_name']]);
    // `{{user}}` alone is still the argument `user`, for configs written before `end_user`.
    doc.tools[0]!.endpoint = { url: 'https://api.example.com/x?u={{user}}' } as never;
    expect(issuesOf(doc)).toEqual([]);
  });

  it('skills read the parent’s end_user', () => {
    const doc = {
      basic_settings: { name: 'T' },
      end_user: { claims: ['email'] },
      skills: [
        {
          name: 's',
          description: 'd',
          basic_settings: { name: 'S' },
          tools: [{ name: 't', description: 'd', endpoint: { url: 'https://api.example.com/x?e={{user.email}}' } }],
        },
      ],
    };
    expect(issuesOf(doc)).toEqual([]);
    expect(issuesOf({ ...doc, end_user: { claims: ['org'] } })).toEqual([
      ['/skills/0/tools/0/endpoint/url', 'unknown_user_claim'],
    ]);
  });
});

describe('end_user: rendering', () => {
  const endpoint = {
    url: 'https://api.example.com/orgs/{{user.org_id}}',
    method: 'POST',
    headers: { Authorization: 'Bearer {{user.token}}', 'X-Email': '{{user.email}}' },
    query_params: { level: '{{user.level}}' },
    body: { admin: '{{user.admin}}', level: '{{user.level}}', missing: '{{user.absent}}' },
  };
  const withAbsent = { claims: ['email', 'org_id', 'admin', 'level', 'absent'], forward_token: true };

  it('fills claims and the token per position, keeping JSON types, and drops an absent claim', () => {
    const req = render(
      endpoint,
      { user: user({ email: 'ada@example.com', org_id: 'acme/eu', admin: true, level: 3 }, 'tok.en.sig') },
      withAbsent,
    );
    expect(req.url).toBe('https://api.example.com/orgs/acme%2Feu?level=3');
    expect(req.headers).toMatchObject({ Authorization: 'Bearer tok.en.sig', 'X-Email': 'ada@example.com' });
    expect(JSON.parse(req.body!)).toEqual({ admin: true, level: 3 });
  });

  it.each([
    ['no verified end user', undefined],
    ['an expired token', user({ email: 'ada@example.com' }, 'tok', Math.floor(Date.now() / 1000) - 1)],
  ])('with %s nothing is rendered: sign_in_required with the configured message', (_name, value) => {
    const attempt = () =>
      render(endpoint, value ? { user: value } : {}, {
        ...withAbsent,
        sign_in_message: 'Log in at shop.example first.',
      });
    expect(attempt).toThrow(
      expect.objectContaining({ code: 'sign_in_required', message: 'Log in at shop.example first.' }),
    );
    const plain = () => render(endpoint, value ? { user: value } : {}, withAbsent);
    expect(plain).toThrow(
      expect.objectContaining({ code: 'sign_in_required', message: 'This needs you to sign in first.' }),
    );
  });

  it('a tool that reads no user value runs without one', () => {
    expect(render({ url: 'https://api.example.com/x' }, {}).url).toBe('https://api.example.com/x');
  });

  it('model arguments can never fill a user value', () => {
    const { config, hash } = loadAgentConfig(
      agentDoc({ url: 'https://api.example.com/x', method: 'POST', body: { e: '{{user.email}}' } }),
    );
    const tool = compileAgent(config, hash).tools[0]!;
    const req = tool.render({ user: { email: 'evil' }, q: 'x' } as Record<string, unknown>, {
      context: {},
      secrets: {},
      user: user({ email: 'ada@example.com' }),
    });
    expect(JSON.parse(req.body!)).toEqual({ e: 'ada@example.com' });
  });
});

describe('end_user: hostile claim values are encoded per position (same guarantees as arguments)', () => {
  const hostile = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '../../admin?x=',
      '..',
      '.',
      'a","role":"admin',
      'x\r\nX-Admin: 1',
      '{{secrets.CRM_TOKEN}}',
      '{{user.token}}',
      '%2e%2e',
      '<b>&"\'',
      'ünïcödé ✓',
      'a\u0000b',
    ),
  );
  const doc = agentDoc(
    {
      url: 'https://api.example.com/v1/items/{{user.email}}?inline={{user.email}}',
      method: 'POST',
      query_params: { form: '{{user.email}}' },
      headers: { 'X-Email': 'v={{user.email}}' },
      body: { whole: '{{user.email}}', inside: 'user: {{user.email}}' },
    },
    { claims: ['email'] },
  );
  const { config, hash } = loadAgentConfig(doc);
  const tool = compileAgent(config, hash).tools[0]!;
  const ctxFor = (email: string): ToolContext => ({
    context: {},
    secrets: { CRM_TOKEN: 'never-this' },
    user: user({ email }),
  });

  it('path, query, header and body each keep the value one inert unit', () => {
    fc.assert(
      fc.property(hostile, (email) => {
        let req: ReturnType<typeof tool.render>;
        try {
          req = tool.render({}, ctxFor(email));
        } catch (error) {
          // Refused, never sent: a dot segment in the path, or what a header cannot carry.
          const code = (error as { code?: string }).code;
          expect(code).toBe('invalid_arguments');
          // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters headers refuse.
          const headerUnsafe = /[\r\n\u0000]|[^\u0000-\u00ff]/.test(email);
          expect(headerUnsafe || email === '.' || email === '..').toBe(true);
          return;
        }
        const url = new URL(req.url);
        // One path segment whatever the value holds.
        expect(url.pathname.split('/')).toHaveLength(4);
        expect(decodeURIComponent(url.pathname.split('/')[3]!)).toBe(email);
        expect(url.searchParams.get('inline')).toBe(email);
        expect(url.searchParams.get('form')).toBe(email);
        expect([...url.searchParams.keys()].sort()).toEqual(['form', 'inline']);
        expect(req.headers['X-Email']).toBe(`v=${email}`);
        expect(JSON.parse(req.body!)).toEqual({ whole: email, inside: `user: ${email}` });
        // One pass: a value spelling a placeholder is sent as it is, never filled.
        expect(req.body).not.toContain('never-this');
      }),
      { numRuns: 300 },
    );
  });
});

describe('end_user: values and masking', () => {
  it('keeps only declared claims of scalar types within bounds, and the token only when forwarded', () => {
    const exp = future();
    const payload = {
      sub: 'u1',
      exp,
      email: 'a@b.c',
      org: { id: 1 },
      n: 7,
      ok: false,
      long: 'x'.repeat(MAX_END_USER_CLAIM_CHARS + 1),
      nan: Number.NaN,
    };
    expect(endUserValues(undefined, payload, 'tok')).toBeUndefined();
    expect(endUserValues({ claims: ['email', 'org', 'n', 'ok', 'long', 'nan', 'gone'] }, payload, 'tok')).toEqual({
      claims: { email: 'a@b.c', n: 7, ok: false },
      expiresAt: exp,
    });
    expect(endUserValues({ claims: [], forward_token: true }, payload, 'tok')).toEqual({
      claims: {},
      token: 'tok',
      expiresAt: exp,
    });
  });

  it('masks the token and claim values like secrets (short ones and booleans stay, they would mask ordinary text)', () => {
    const values = maskedValues({
      secrets: { S: 'sekret' },
      user: { claims: { email: 'ada@example.com', n: 12345, ok: true, lang: 'en' }, token: 'ey.J.x' },
    });
    const text = 'ada@example.com ada%40example.com 12345 ey.J.x sekret true en';
    expect(maskSecrets(text, values)).toBe('*** *** *** *** *** true en');
  });
});
