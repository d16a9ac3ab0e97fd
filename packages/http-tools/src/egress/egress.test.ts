import { execFileSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { lookup as dnsLookup } from 'node:dns/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { RenderedRequest } from '@agentry/config';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closePooledAgents, createEgressPolicy, type EgressLookup, type EgressPolicy, egressFetch } from '../egress.ts';
import { readBoundedText } from '../read-body.ts';
import { EgressError } from './egress-error.ts';

/**
 * Real servers on loopback addresses stand in for the internet and the private network:
 * - "private": 127.0.0.1:PORT (and [::1]:PORT) — the SSRF target, never allowlisted; must receive nothing.
 * - "public":  127.0.0.2:PORT — plays a public host: the policy allowlists the single address 127.0.0.2,
 *   and the injected lookup maps `public.test`, `other.test`, … to it.
 * Both listen on the same port, so a redirect from the public server to `http://127.0.0.1:PORT/` is a
 * real attempt to reach the private one. Every test also counts the client sockets Node opens.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  localAddress: string | undefined;
}

const seen = { private: [] as Seen[], private6: [] as Seen[], public: [] as Seen[] };
const servers: Server[] = [];
let port = 0;

function handler(into: Seen[]) {
  return (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      into.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        localAddress: req.socket.localAddress,
      });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const redirect = (status: number, location: string) => {
        res.writeHead(status, { location });
        res.end('moved');
      };
      if (path === '/to-private') return redirect(302, `http://127.0.0.1:${port}/steal`);
      if (path === '/to-private-hex') return redirect(302, `http://0x7f.1:${port}/steal`);
      if (path === '/to-metadata') return redirect(302, 'http://169.254.169.254/latest/meta-data/');
      if (path === '/to-private-name') return redirect(301, `http://private.test:${port}/steal`);
      if (path === '/to-file') return redirect(302, 'file:///etc/passwd');
      if (path === '/to-gopher') return redirect(307, `gopher://127.0.0.1:${port}/_SET%20x`);
      if (path === '/same-origin') return redirect(302, '/echo');
      if (path === '/cross-origin') return redirect(302, `http://other.test:${port}/echo`);
      if (path === '/see-other') return redirect(303, '/echo');
      if (path === '/temporary') return redirect(307, '/echo');
      if (path === '/loop') return redirect(302, '/loop');
      if (path === '/no-location') {
        res.writeHead(302);
        return res.end('no location');
      }
      if (path === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('z'.repeat(100_000));
      }
      if (path === '/slow') return void setTimeout(() => res.end('late'), 2000);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ server: req.socket.localAddress, path, method: req.method, host: req.headers.host }));
    });
  };
}

async function listen(server: Server, host: string, at: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, host, () => resolve());
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  port = await listen(createServer(handler(seen.public)), '127.0.0.2', 0);
  await listen(createServer(handler(seen.private)), '127.0.0.1', port);
  await listen(createServer(handler(seen.private6)), '::1', port).catch(() => undefined); // no IPv6: case still refused
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Client sockets opened (net.connect/tls.connect publish here, whichever HTTP client is used). */
let sockets = 0;
const onSocket = () => {
  sockets += 1;
};
beforeEach(async () => {
  // Every test starts without kept-alive connections, so `sockets` counts what it opens.
  await closePooledAgents();
  sockets = 0;
  seen.private.length = 0;
  seen.private6.length = 0;
  seen.public.length = 0;
  subscribe('net.client.socket', onSocket);
});
afterEach(() => unsubscribe('net.client.socket', onSocket));

/** The test "DNS": fixed answers, `localhost` from the system resolver, anything else unknown. */
const dns: Record<string, string[]> = {
  'public.test': ['127.0.0.2'],
  'other.test': ['127.0.0.2'],
  'private.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['127.0.0.2', '127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'intranet.local': ['127.0.0.1'],
  'api.corp.example': ['127.0.0.1'],
  'corp.example': ['127.0.0.1'],
  'evilcorp.example': ['127.0.0.1'],
};
const lookup: EgressLookup = async (hostname) => {
  if (hostname === 'localhost') {
    const answers = await dnsLookup('localhost', { all: true });
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
  const answers = dns[hostname];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** 127.0.0.2 is "the internet"; nothing private is allowlisted. */
const policy = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup });

const get = (url: string, headers: Record<string, string> = {}): RenderedRequest => ({ method: 'GET', url, headers });

async function refusal(request: RenderedRequest, with_: EgressPolicy = policy): Promise<EgressError> {
  const error = await egressFetch(request, { policy: with_ }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

describe('egressFetch refuses SSRF targets before connecting', () => {
  const P = () => port;
  const cases: Array<[string, () => string, string, string | undefined]> = [
    ['127.0.0.1', () => `http://127.0.0.1:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['localhost (system resolver)', () => `http://localhost:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['0.0.0.0', () => `http://0.0.0.0:${P()}/`, 'egress_forbidden_address', 'unspecified'],
    ['[::]', () => `http://[::]:${P()}/`, 'egress_forbidden_address', 'unspecified'],
    ['[::1]', () => `http://[::1]:${P()}/`, 'egress_forbidden_address', 'loopback'],
    [
      '169.254.169.254 (metadata)',
      () => 'http://169.254.169.254/latest/meta-data/',
      'egress_forbidden_address',
      'link_local',
    ],
    ['10.0.0.1', () => 'http://10.0.0.1/', 'egress_forbidden_address', 'private'],
    ['172.16.0.1', () => 'http://172.16.0.1/', 'egress_forbidden_address', 'private'],
    ['172.31.255.255', () => 'http://172.31.255.255/', 'egress_forbidden_address', 'private'],
    ['192.168.1.1', () => 'https://192.168.1.1/', 'egress_forbidden_address', 'private'],
    ['100.64.0.1 (CGNAT)', () => 'http://100.64.0.1/', 'egress_forbidden_address', 'carrier_grade_nat'],
    ['224.0.0.1', () => 'http://224.0.0.1/', 'egress_forbidden_address', 'multicast'],
    ['255.255.255.255', () => 'http://255.255.255.255/', 'egress_forbidden_address', 'broadcast'],
    ['240.0.0.1', () => 'http://240.0.0.1/', 'egress_forbidden_address', 'reserved'],
    ['decimal 2130706433', () => `http://2130706433:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['hex 0x7f.1', () => `http://0x7f.1:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['octal 017700000001', () => `http://017700000001:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['short 127.1', () => `http://127.1:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['octal 0251.0376.0251.0376', () => 'http://0251.0376.0251.0376/', 'egress_forbidden_address', 'link_local'],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['[::ffff:7f00:1]', () => `http://[::ffff:7f00:1]:${P()}/`, 'egress_forbidden_address', 'loopback'],
    [
      '[::ffff:a9fe:a9fe] (mapped metadata)',
      () => 'http://[::ffff:a9fe:a9fe]/',
      'egress_forbidden_address',
      'link_local',
    ],
    ['[::127.0.0.1] (IPv4-compatible)', () => `http://[::127.0.0.1]:${P()}/`, 'egress_forbidden_address', 'loopback'],
    ['[64:ff9b::a00:1] (NAT64 of 10.0.0.1)', () => 'http://[64:ff9b::a00:1]/', 'egress_forbidden_address', 'private'],
    ['[2002:7f00:1::] (6to4)', () => 'http://[2002:7f00:1::]/', 'egress_forbidden_address', 'tunnel'],
    ['[2001:0:4136:e378::] (Teredo)', () => 'http://[2001:0:4136:e378::]/', 'egress_forbidden_address', 'tunnel'],
    ['[fd00::1] (ULA)', () => 'http://[fd00::1]/', 'egress_forbidden_address', 'unique_local'],
    ['[fe80::1] (link-local)', () => 'http://[fe80::1]/', 'egress_forbidden_address', 'link_local'],
    ['[ff02::1] (multicast)', () => 'http://[ff02::1]/', 'egress_forbidden_address', 'multicast'],
    ['a host name resolving to 10.0.0.5', () => `http://private.test:${P()}/`, 'egress_forbidden_address', 'private'],
    ['a host name resolving to metadata', () => 'http://metadata.test/', 'egress_forbidden_address', 'link_local'],
    ['a host name with one private answer', () => `http://mixed.test:${P()}/`, 'egress_forbidden_address', 'loopback'],
    [
      'a host name resolving to ::ffff:127.0.0.1',
      () => `http://mapped.test:${P()}/`,
      'egress_forbidden_address',
      'loopback',
    ],
    ['file:', () => 'file:///etc/passwd', 'egress_forbidden_scheme', undefined],
    ['gopher:', () => `gopher://127.0.0.1:${P()}/_SET%20x`, 'egress_forbidden_scheme', undefined],
    ['ftp:', () => 'ftp://public.test/', 'egress_forbidden_scheme', undefined],
    ['data:', () => 'data:text/plain,hi', 'egress_forbidden_scheme', undefined],
    ['ws:', () => `ws://public.test:${P()}/`, 'egress_forbidden_scheme', undefined],
    ['an unknown host name', () => 'http://nowhere.test/', 'egress_dns_failed', undefined],
  ];

  it.each(cases)('%s', async (_name, url, code, rule) => {
    const error = await refusal(get(url()));
    expect(error.code).toBe(code);
    if (rule) expect(error.details).toMatchObject({ rule });
    expect(error.message).not.toMatch(/10\.0\.0\.5|127\.0\.0\.1|169\.254|::ffff/); // never echo what DNS said
    expect(sockets).toBe(0);
    expect(seen.private).toEqual([]);
    expect(seen.private6).toEqual([]);
    expect(seen.public).toEqual([]);
  });

  it('reaches the "public" test host (the control for the cases above)', async () => {
    const res = await egressFetch(get(`http://public.test:${port}/hello`), { policy });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      server: '127.0.0.2',
      path: '/hello',
      method: 'GET',
      host: `public.test:${port}`,
    });
    expect(sockets).toBe(1);
    expect(seen.private).toEqual([]);
  });
});

describe('redirects are re-checked at every hop', () => {
  const refusedRedirects: Array<[string, string, string, string | undefined]> = [
    ['to 127.0.0.1 (not allowlisted)', '/to-private', 'egress_forbidden_address', 'loopback'],
    ['to 0x7f.1', '/to-private-hex', 'egress_forbidden_address', 'loopback'],
    ['to the metadata address', '/to-metadata', 'egress_forbidden_address', 'link_local'],
    ['to a name resolving privately (301)', '/to-private-name', 'egress_forbidden_address', 'private'],
    ['to file:', '/to-file', 'egress_forbidden_scheme', undefined],
    ['to gopher: (307)', '/to-gopher', 'egress_forbidden_scheme', undefined],
  ];

  it.each(refusedRedirects)('a public URL redirecting %s is refused', async (_name, path, code, rule) => {
    const error = await refusal(get(`http://public.test:${port}${path}`));
    expect(error.code).toBe(code);
    if (rule) expect(error.details).toMatchObject({ rule, hop: 1 });
    expect(error.message).toMatch(/^Redirect 1’s /);
    expect(seen.public.map((s) => s.url)).toEqual([path]);
    expect(seen.private).toEqual([]);
    expect(sockets).toBe(1); // the first hop only
  });

  it('follows a same-origin redirect, keeping the headers', async () => {
    const res = await egressFetch(get(`http://public.test:${port}/same-origin`, { Authorization: 'Bearer s3cret' }), {
      policy,
    });
    expect(res.status).toBe(200);
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`http://public.test:${port}/echo`);
    expect(seen.public.map((s) => [s.url, s.headers.authorization])).toEqual([
      ['/same-origin', 'Bearer s3cret'],
      ['/echo', 'Bearer s3cret'],
    ]);
  });

  it('drops credentials and every non-safelisted header on a cross-origin hop', async () => {
    const headers = {
      Authorization: 'Bearer s3cret',
      Cookie: 'sid=1',
      'X-Api-Key': 'k3y',
      'Idempotency-Key': 'idem-1',
      Accept: 'application/json',
      'User-Agent': 'agentry-test',
    };
    const res = await egressFetch(get(`http://public.test:${port}/cross-origin`, headers), { policy });
    expect(res.status).toBe(200);
    const [first, second] = seen.public;
    expect(first?.headers).toMatchObject({ authorization: 'Bearer s3cret', cookie: 'sid=1', 'x-api-key': 'k3y' });
    expect(second?.headers.host).toBe(`other.test:${port}`);
    expect(second?.headers).toMatchObject({ accept: 'application/json', 'user-agent': 'agentry-test' });
    for (const dropped of ['authorization', 'cookie', 'x-api-key', 'idempotency-key']) {
      expect(second?.headers[dropped]).toBeUndefined();
    }
  });

  it('turns a POST into a body-less GET on 303, and keeps it on 307', async () => {
    const post = (path: string): RenderedRequest => ({
      method: 'POST',
      url: `http://public.test:${port}${path}`,
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    await egressFetch(post('/see-other'), { policy });
    expect(seen.public.map((s) => [s.method, s.url, s.body, s.headers['content-type']])).toEqual([
      ['POST', '/see-other', '{"a":1}', 'application/json'],
      ['GET', '/echo', '', undefined],
    ]);
    seen.public.length = 0;
    await egressFetch(post('/temporary'), { policy });
    expect(seen.public.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/temporary', '{"a":1}'],
      ['POST', '/echo', '{"a":1}'],
    ]);
  });

  it('stops after maxRedirects hops', async () => {
    const error = await refusal(get(`http://public.test:${port}/loop`));
    expect(error.code).toBe('egress_too_many_redirects');
    expect(seen.public).toHaveLength(6); // the request and 5 redirects
    const none = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup, maxRedirects: 0 });
    seen.public.length = 0;
    expect((await refusal(get(`http://public.test:${port}/same-origin`), none)).code).toBe('egress_too_many_redirects');
    expect(seen.public).toHaveLength(1);
  });

  it('hands back a redirect without a Location as it is', async () => {
    const res = await egressFetch(get(`http://public.test:${port}/no-location`), { policy });
    expect(res.status).toBe(302);
    expect(await res.text()).toBe('no location');
  });
});

describe('header injection is refused before anything is sent', () => {
  const bad: Array<[string, Record<string, string>]> = [
    ['CR/LF in a value', { 'X-Note': 'a\r\nX-Injected: 1' }],
    ['LF in a value', { 'X-Note': 'a\nb' }],
    ['NUL in a value', { 'X-Note': 'a\0b' }],
    ['CR/LF in a name', { 'X-A\r\nX-B': '1' }],
    ['a space in a name', { 'X A': '1' }],
    ['Host override', { Host: '169.254.169.254' }],
    ['host override (lower case)', { host: 'internal' }],
    ['Content-Length', { 'Content-Length': '0' }],
    ['Connection', { Connection: 'close' }],
    ['Keep-Alive', { 'Keep-Alive': 'timeout=5' }],
    ['Proxy-Authorization', { 'Proxy-Authorization': 'Basic x' }],
    ['Proxy-Connection', { 'Proxy-Connection': 'keep-alive' }],
    ['TE', { TE: 'trailers' }],
    ['Trailer', { Trailer: 'X' }],
    ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }],
    ['Upgrade', { Upgrade: 'websocket' }],
  ];

  it.each(bad)('%s', async (_name, headers) => {
    const error = await refusal(get(`http://public.test:${port}/echo`, headers));
    expect(error.code).toBe('egress_bad_header');
    expect(error.message).not.toContain('169.254');
    expect(sockets).toBe(0);
    expect(seen.public).toEqual([]);
  });
});

describe('allowlists', () => {
  it('lets an allowlisted CIDR through', async () => {
    const res = await egressFetch(get(`http://127.0.0.1:${port}/x`), {
      policy: createEgressPolicy({ allowlist: ['127.0.0.0/8'] }),
    });
    expect(await res.json()).toMatchObject({ server: '127.0.0.1' });
    expect(seen.private).toHaveLength(1);
  });

  it('lets an allowlisted IPv6 address through', async () => {
    if (!servers.some((s) => (s.address() as AddressInfo).address === '::1')) return; // no IPv6 loopback here
    const res = await egressFetch(get(`http://[::1]:${port}/x`), {
      policy: createEgressPolicy({ allowlist: ['::1'] }),
    });
    expect(res.status).toBe(200);
    expect(seen.private6).toHaveLength(1);
  });

  it('lets an allowlisted host name through whatever it resolves to', async () => {
    const hosts = createEgressPolicy({ allowlist: ['intranet.local', '*.corp.example'], lookup });
    expect((await egressFetch(get(`http://intranet.local:${port}/a`), { policy: hosts })).status).toBe(200);
    expect((await egressFetch(get(`http://API.corp.example:${port}/b`), { policy: hosts })).status).toBe(200);
    expect(seen.private.map((s) => s.url)).toEqual(['/a', '/b']);
    // the wildcard covers sub-domains only, and only on a label boundary
    expect((await refusal(get(`http://corp.example:${port}/`), hosts)).code).toBe('egress_forbidden_address');
    expect((await refusal(get(`http://evilcorp.example:${port}/`), hosts)).code).toBe('egress_forbidden_address');
    expect(seen.private).toHaveLength(2);
  });

  it('rejects malformed allowlist entries when the policy is built', () => {
    expect(() => createEgressPolicy({ allowlist: ['10.0.0.0/8', '*', 'http://x', '10.0.0.0/33'] })).toThrow(
      /"\*", "http:\/\/x", "10.0.0.0\/33"/,
    );
  });
});

describe('DNS rebinding', () => {
  it('connects to the address that was checked, not to a later DNS answer', async () => {
    let calls = 0;
    const rebinding: EgressLookup = async () => {
      calls += 1;
      // First answer: the "public" address (allowed). Every later answer: loopback (refused).
      return [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    };
    const p = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup: rebinding });
    const res = await egressFetch(get(`http://rebind.test:${port}/x`), { policy: p });
    expect(await res.json()).toMatchObject({ server: '127.0.0.2', host: `rebind.test:${port}` });
    expect(calls).toBe(1);
    expect(seen.private).toEqual([]);
    expect(seen.public).toHaveLength(1);
  });

  it('re-resolves on each request and refuses once the answer turns private', async () => {
    let calls = 0;
    const rebinding: EgressLookup = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    };
    const p = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup: rebinding });
    expect((await egressFetch(get(`http://rebind.test:${port}/1`), { policy: p })).status).toBe(200);
    expect((await refusal(get(`http://rebind.test:${port}/2`), p)).details).toMatchObject({ rule: 'loopback' });
    expect(seen.private).toEqual([]);
  });

  describe('over TLS', () => {
    let dir: string | undefined;
    let tls: TlsServer | undefined;
    const servernames: string[] = [];
    const localAddresses: Array<string | undefined> = [];

    beforeAll(async () => {
      try {
        dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
        execFileSync(
          'openssl',
          [
            ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=secure.test'],
            ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
          ],
          { stdio: 'ignore' },
        );
      } catch {
        return; // no openssl: the test below is skipped
      }
      const context = createSecureContext({
        key: readFileSync(join(dir, 'key.pem')),
        cert: readFileSync(join(dir, 'cert.pem')),
      });
      tls = createTlsServer({
        // Runs on the ClientHello, so SNI is recorded even though the client rejects the self-signed cert.
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null, context);
        },
      });
      tls.on('connection', (socket) => localAddresses.push(socket.localAddress));
      tls.on('tlsClientError', () => {});
      await new Promise<void>((resolve) => tls?.listen(0, '127.0.0.2', resolve));
    });

    afterAll(async () => {
      if (tls) await new Promise((resolve) => tls?.close(resolve));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('keeps the host name for SNI while connecting to the pinned address', async (ctx) => {
      if (!tls) return ctx.skip();
      const tlsPort = (tls.address() as AddressInfo).port;
      let calls = 0;
      const pinned = createEgressPolicy({
        allowlist: ['127.0.0.2'],
        lookup: async () => {
          calls += 1;
          return [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
        },
      });
      // The certificate is self-signed, so the handshake fails on our side: a plain network error.
      const error = await egressFetch(get(`https://secure.test:${tlsPort}/`), { policy: pinned }).catch((e) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(localAddresses).toEqual(['127.0.0.2']);
      expect(servernames).toEqual(['secure.test']);
      expect(calls).toBe(1);
    });
  });
});

describe('keep-alive', () => {
  it('reuses a connection for the same origin checked to the same addresses, and opens one for a new answer', async () => {
    for (const path of ['/a', '/b', '/c']) {
      const res = await egressFetch(get(`http://public.test:${port}${path}`), { policy });
      expect(await res.json()).toMatchObject({ path });
      // undici frees the socket for the next request just after the body's end reaches the reader.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sockets).toBe(1);
    // Another origin on the same address, and the same origin checked to another answer: new sockets.
    await (await egressFetch(get(`http://other.test:${port}/d`), { policy })).text();
    expect(sockets).toBe(2);
    let calls = 0;
    const moving: EgressLookup = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.3', family: 4 }];
    };
    const p = createEgressPolicy({ allowlist: ['127.0.0.2', '127.0.0.3'], lookup: moving });
    await (await egressFetch(get(`http://moving.test:${port}/e`), { policy: p })).text();
    await egressFetch(get(`http://moving.test:${port}/f`), { policy: p }).catch(() => undefined);
    expect(sockets).toBe(4);
  });

  it('does not reuse a connection whose response body was cut at the size cap', async () => {
    const small = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup, maxResponseBytes: 1000 });
    const res = await egressFetch(get(`http://public.test:${port}/big`), { policy: small });
    await expect(res.text()).rejects.toMatchObject({ code: 'egress_response_too_large' });
    expect((await egressFetch(get(`http://public.test:${port}/after`), { policy: small })).status).toBe(200);
    expect(sockets).toBe(2);
    expect(seen.public.map((s) => s.url)).toEqual(['/big', '/after']);
  });
});

describe('size and time caps', () => {
  it('cuts a body above maxResponseBytes with egress_response_too_large', async () => {
    const small = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup, maxResponseBytes: 1000 });
    const res = await egressFetch(get(`http://public.test:${port}/big`), { policy: small });
    await expect(res.text()).rejects.toMatchObject({ code: 'egress_response_too_large' });
    const again = await egressFetch(get(`http://public.test:${port}/big`), { policy: small });
    const bounded = await readBoundedText(again, 1_000_000);
    expect(bounded).toMatchObject({ truncated: true, bytes: 1000 });
  });

  it('gives up after timeoutMs', async () => {
    const quick = createEgressPolicy({ allowlist: ['127.0.0.2'], lookup, timeoutMs: 200 });
    const started = performance.now();
    await expect(egressFetch(get(`http://public.test:${port}/slow`), { policy: quick })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(performance.now() - started).toBeLessThan(1500);
  });
});
