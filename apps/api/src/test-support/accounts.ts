import { availableServices, firstLink } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { ADMIN_TOKEN, call, type Harness, type Mode } from './harness.ts';

/** Embedded (PGlite, memory throttle) and, when the machine has them, production (Postgres + Redis). */
export const accountModes: Mode[] =
  availableServices().postgres && availableServices().redis ? ['embedded', 'production'] : ['embedded'];

export interface BrowserResult {
  status: number;
  headers: Headers;
  /** The raw body, to check nothing secret leaves. */
  text: string;
  json: any;
}

/**
 * A browser stand-in: keeps the session cookie it is given (and forgets it when cleared), and
 * records every answer's text so a test can assert what never appeared in one.
 */
export class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  readonly seen: string[] = [];
  private readonly h: Pick<Harness, 'platform'>;
  constructor(h: Pick<Harness, 'platform'>) {
    this.h = h;
  }

  async request(
    method: string,
    path: string,
    options: {
      body?: unknown;
      tenant?: string;
      /** false: omit X-CSRF-Token; a string: send that instead of the session's. */
      csrf?: boolean | string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<BrowserResult> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = `agentry_session=${this.cookie}`;
    if (options.tenant) headers['x-agentry-tenant'] = options.tenant;
    const csrf = options.csrf === undefined || options.csrf === true ? this.csrf : options.csrf || undefined;
    if (csrf) headers['x-csrf-token'] = csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.h.platform.url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    this.seen.push(text, ...res.headers.getSetCookie().map((c) => c.replace(/agentry_session=[^;]*/, '')));
    for (const set of res.headers.getSetCookie()) {
      const match = /^agentry_session=([^;]*)/.exec(set);
      if (match) this.cookie = match[1] || undefined;
      if (match && /Max-Age=0/i.test(set)) this.cookie = undefined;
    }
    const json = text ? JSON.parse(text) : undefined;
    if (json?.object === 'session') this.csrf = json.csrf_token;
    return { status: res.status, headers: res.headers, text, json };
  }

  login(email: string, password: string, headers?: Record<string, string>) {
    return this.request('POST', '/v1/auth/login', { body: { email, password }, ...(headers ? { headers } : {}) });
  }

  accept(token: string, password: string, name?: string) {
    return this.request('POST', '/v1/auth/accept-invitation', {
      body: { token, password, ...(name ? { name } : {}) },
    });
  }
}

/** The `token` parameter of a mailed dashboard link (`…/dashboard/#/page?token=…`). */
export function linkToken(link: string): string {
  const token = new URLSearchParams(new URL(link).hash.split('?')[1] ?? '').get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

/**
 * The token of an invitation to `email`: read from the mail the invitee received (the answer
 * holds it only on a server without mail that shows links, `delivery: link`).
 */
export async function invitationToken(
  h: Pick<Harness, 'mail'>,
  email: string,
  answer: { token?: string; delivery?: string },
): Promise<string> {
  if (answer.delivery === 'link' && answer.token) return answer.token;
  if (!h.mail) throw new Error('the invitation was mailed, but the harness has no mail catcher');
  return linkToken(firstLink((await h.mail.next(email)).text));
}

/** A tenant created by the operator with a first owner, who accepted (from the mail) and is signed in. */
export async function tenantWithOwner(
  h: Pick<Harness, 'platform' | 'mail'>,
  name: string,
  email: string,
  password: string,
) {
  const created = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name, owner_email: email } });
  if (created.status !== 201) throw new Error(`tenant creation failed: ${JSON.stringify(created.json)}`);
  const owner = new Browser(h);
  const accepted = await owner.accept(await invitationToken(h, email, created.json.owner_invitation), password);
  if (accepted.status !== 200) throw new Error(`accepting failed: ${JSON.stringify(accepted.json)}`);
  return { id: created.json.id as string, key: created.json.api_key.key as string, owner };
}

/** Invites `email` with `role` (as `owner` in `tenantId`), accepts it in a new browser and returns that browser. */
export async function addMember(
  h: Pick<Harness, 'platform' | 'mail'>,
  owner: Browser,
  tenantId: string,
  email: string,
  role: 'owner' | 'editor' | 'viewer',
  password: string,
): Promise<Browser> {
  const invited = await owner.request('POST', '/v1/invitations', { tenant: tenantId, body: { email, role } });
  if (invited.status !== 201) throw new Error(`invitation failed: ${JSON.stringify(invited.json)}`);
  const browser = new Browser(h);
  const accepted = await browser.accept(await invitationToken(h, email, invited.json), password);
  if (accepted.status !== 200) throw new Error(`accepting failed: ${JSON.stringify(accepted.json)}`);
  return browser;
}

/**
 * Runs SQL as a test fixture (e.g. backdating an expiry) in a transaction that declares the
 * system scope, so row-level security lets it through in both database kinds.
 */
export async function fixtureSql(h: Pick<Harness, 'platform'>, statement: ReturnType<typeof sql>): Promise<void> {
  await h.platform.database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('app.system', 'on', true)`);
    await tx.execute(statement);
  });
}
