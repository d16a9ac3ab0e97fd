import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.ts';

const repo = new URL('../../../', import.meta.url).pathname;
const seed = join(repo, 'configs/seed-demo-booking.json');
const orders = join(repo, 'configs/order-status.json');
const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-'));
const invalid = join(dir, 'invalid.json');
writeFileSync(
  invalid,
  JSON.stringify({ basic_settings: { name: 'x' }, tools: [{ name: 't', description: 'd', endpont: {} }] }),
);
const notJson = join(dir, 'not-json.json');
writeFileSync(notJson, '{ "basic_settings": ');

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('agentry validate', () => {
  it('exits 0 for valid files', async () => {
    const result = await run('validate', seed, orders);
    expect(result.code).toBe(0);
    expect(result.out).toContain('✓');
    expect(result.out).toContain('seed-demo-booking.json is valid');
  });

  it('exits 1 and explains each problem for invalid files', async () => {
    const result = await run('validate', seed, invalid);
    expect(result.code).toBe(1);
    expect(result.out).toContain('has an unknown key `endpont`');
    expect(result.out).toContain('hint: did you mean `endpoint`?');
  });

  it('treats malformed JSON as invalid (1) and missing files as unreadable (2)', async () => {
    expect((await run('validate', notJson)).code).toBe(1);
    const missing = await run('validate', seed, join(dir, 'nope.json'));
    expect(missing.code).toBe(2);
    expect(missing.out).toContain('file not found');
  });

  it('prints machine-readable reports with --json', async () => {
    const result = await run('validate', '--json', seed, invalid);
    const reports = JSON.parse(result.out);
    expect(reports).toEqual([
      { file: seed, status: 'valid', hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      {
        file: invalid,
        status: 'invalid',
        issues: expect.arrayContaining([expect.objectContaining({ code: 'unknown_key' })]),
      },
    ]);
  });
});

describe('agentry render', () => {
  it('prints the exact request with system context filled', async () => {
    const result = await run('render', seed, 'save_customer_information', '{"email":"john@example.com"}');
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      'POST http://api.example.com/contacts/add\nContent-Type: application/json\n\n{"email":"john@example.com","dialogId":"conv_demo"}\n',
    );
  });

  it('masks secrets, given or not', async () => {
    const given = await run(
      'render',
      orders,
      'get_order_status',
      '{"order_id":"NW-12345"}',
      '--secret',
      'NORTHWIND_TOKEN=abc123',
    );
    expect(given.out).toContain('Authorization: Bearer ***');
    expect(given.out).not.toContain('abc123');
    const standIn = await run('render', orders, 'list_recent_orders', '{}', '--context', 'customerId=c 7');
    expect(standIn.out).toBe(
      'GET https://api.northwind.example/v1/customers/c%207/orders?limit=5\nAuthorization: Bearer ***\n',
    );
  });

  it('renders end-user values (`--user claim=value`, stand-ins otherwise), masked like secrets', async () => {
    const file = join(dir, 'end-user.json');
    writeFileSync(
      file,
      JSON.stringify({
        basic_settings: { name: 'Shop' },
        end_user: { claims: ['email', 'org_id'], forward_token: true },
        tools: [
          {
            name: 'my_orders',
            description: 'Orders',
            endpoint: {
              url: 'https://api.shop.example/orgs/{{user.org_id}}/orders',
              headers: { Authorization: 'Bearer {{user.token}}', 'X-Email': '{{user.email}}' },
            },
          },
        ],
      }),
    );
    const result = await run(
      'render',
      file,
      'my_orders',
      '{}',
      '--user',
      'email=ada@example.com',
      '--user',
      'token=ey.J.x',
    );
    expect(result.code).toBe(0);
    expect(result.out).toBe('GET https://api.shop.example/orgs/***/orders\nAuthorization: Bearer ***\nX-Email: ***\n');
    expect(result.out).not.toContain('ada@example.com');
  });

  it('reports bad arguments and unknown tools with exit 1', async () => {
    const bad = await run('render', orders, 'get_order_status', '{"order_id":"x"}');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('invalid_format');
    const unknown = await run('render', orders, 'nope', '{}');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('get_order_status, list_recent_orders');
  });

  it('runs as a program with the documented exit codes', async () => {
    const main = join(repo, 'apps/cli/src/main.ts');
    const exec = promisify(execFile);
    await expect(exec(process.execPath, [main, 'validate', seed])).resolves.toMatchObject({
      stdout: expect.stringContaining('✓'),
    });
    await expect(exec(process.execPath, [main, 'validate', invalid])).rejects.toMatchObject({ code: 1 });
    await expect(exec(process.execPath, [main, 'validate', join(dir, 'nope.json')])).rejects.toMatchObject({ code: 2 });
  });
});

describe('agentry flow', () => {
  const leave = join(repo, 'configs/leave-request.json');

  it('plays messages through a flow: replies, the request a tool step would send, the state', async () => {
    const result = await run(
      'flow',
      leave,
      'I want to make a leave request',
      '2026-12-01',
      '2026-12-04',
      'Family',
      'Yes, file it',
      '--result',
      'create_leave_request={"id":"LR-1"}',
      '--json',
    );
    expect(result.code).toBe(0);
    const turns = JSON.parse(result.out);
    expect(turns.map((t: any) => t.replies)).toEqual([
      ['Which day does your leave start? (YYYY-MM-DD)'],
      ['And the last day? (YYYY-MM-DD)'],
      ['What is the reason for your leave?'],
      ['File leave from 2026-12-01 to 2026-12-04 (Family)?'],
      ['Done: your leave request LR-1 is filed.'],
    ]);
    expect(turns[4].requests).toEqual([
      'POST https://hr.northwind.example/v1/leave-requests {"start":"2026-12-01","end":"2026-12-04","reason":"Family","employee":"user_demo"}',
    ]);
    expect(turns[4].state).toMatchObject({ status: 'ended', slots: { request_id: 'LR-1' } });
  });

  it('says when no flow starts, and names the field of a bad --result', async () => {
    const none = await run('flow', leave, 'hello');
    expect([none.code, none.out]).toEqual([0, '> hello\n  (no flow: the model would answer)\n']);
    const bad = await run('flow', leave, 'leave request', '--result', 'create_leave_request={oops');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--result needs tool=<json>');
    expect((await run('flow', seed, 'hi')).err).toContain('has no flows');
  });
});
