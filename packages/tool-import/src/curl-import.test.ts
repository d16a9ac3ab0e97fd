import { compileAgent, loadAgentConfig } from '@agentry/config';
import type { ToolConfig } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { importTools } from './index.ts';

async function one(command: string) {
  const result = await importTools({ kind: 'curl', command });
  expect(result.tools).toHaveLength(1);
  return { ...result, tool: result.tools[0]! };
}

/** The request the tool renders for `args` (nothing is sent), secrets filled with `secrets`. */
function render(tool: ToolConfig, args: Record<string, unknown>, secrets: Record<string, string> = {}) {
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'curl' }, tools: [tool] });
  const compiled = compileAgent(config, hash).tools[0]!;
  const checked = compiled.validateArguments(args);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  return compiled.render(checked.value, { context: {}, secrets });
}

describe('cURL import', () => {
  it('-X, -H and -d JSON: the body keys become arguments, the bearer token a secret', async () => {
    const { tool, secrets } = await one(
      `curl -X POST 'https://api.shop.example/v1/orders' \\
         -H 'Content-Type: application/json' -H "Authorization: Bearer sk_live_123" -H 'X-Client: agentry' \\
         -d '{"sku":"A-1","quantity":2,"gift":false}'`,
    );
    expect(tool.endpoint).toMatchObject({
      url: 'https://api.shop.example/v1/orders',
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'Bearer {{secrets.SHOP_TOKEN}}',
        'X-Client': 'agentry',
      },
      body: { sku: '{{sku}}', quantity: '{{quantity}}', gift: '{{gift}}' },
    });
    expect(tool.parameters).toMatchObject({
      properties: { sku: { type: 'string' }, quantity: { type: 'integer' }, gift: { type: 'boolean' } },
      required: ['sku', 'quantity', 'gift'],
    });
    expect(secrets).toEqual([{ name: 'SHOP_TOKEN', description: expect.stringContaining('Authorization') }]);
    expect(JSON.stringify(tool)).not.toContain('sk_live_123');
    const request = render(tool, { sku: 'B-2', quantity: 3, gift: true }, { SHOP_TOKEN: 't0k' });
    expect(request).toMatchObject({ method: 'POST', url: 'https://api.shop.example/v1/orders' });
    expect(request.headers.Authorization).toBe('Bearer t0k');
    expect(JSON.parse(request.body!)).toEqual({ sku: 'B-2', quantity: 3, gift: true });
  });

  it('--data-raw is -d: same tool; without -X a body means POST', async () => {
    const a = await one(`curl https://api.shop.example/v1/orders -d '{"sku":"A-1"}'`);
    const b = await one(`curl https://api.shop.example/v1/orders --data-raw '{"sku":"A-1"}'`);
    const c = await one(`curl -XPOST https://api.shop.example/v1/orders --data-raw='{"sku":"A-1"}'`);
    expect(a.tool).toEqual(b.tool);
    expect(c.tool).toEqual(a.tool);
    expect(a.tool.endpoint?.method).toBe('POST');
    expect(a.tool.endpoint?.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it('-G --data-urlencode and the URL query string become query arguments with their values as defaults', async () => {
    const { tool } = await one(
      `curl -G 'https://search.example.com/api/search?lang=en' --data-urlencode 'q=red shoes' --data-urlencode 'sort=price asc'`,
    );
    expect(tool.endpoint).toMatchObject({
      url: 'https://search.example.com/api/search',
      method: 'GET',
      query_params: { lang: '{{lang}}', q: '{{q}}', sort: '{{sort}}' },
    });
    expect(tool.endpoint?.body).toBeUndefined();
    // Left out, an argument's default fills it: the call equals the command.
    const same = render(tool, {});
    expect(new URL(same.url).searchParams.get('q')).toBe('red shoes');
    expect(new URL(same.url).searchParams.get('lang')).toBe('en');
    const other = render(tool, { q: 'blue & green' });
    expect(new URL(other.url).searchParams.get('q')).toBe('blue & green');
  });

  it('-u user:pass becomes HTTP Basic from a secret; the password is never kept', async () => {
    const { tool, secrets } = await one(`curl -u admin:hunter2 https://intranet.example.org/api/status`);
    expect(tool.endpoint?.headers).toEqual({ Authorization: 'Basic {{secrets.EXAMPLE_BASIC_AUTH}}' });
    expect(secrets[0]).toMatchObject({ name: 'EXAMPLE_BASIC_AUTH', description: expect.stringContaining('base64') });
    expect(JSON.stringify(tool)).not.toContain('hunter2');
    expect(tool.endpoint?.method).toBe('GET');
  });

  it('API-key headers become secrets; browser "copy as cURL" noise is ignored with a note', async () => {
    const { tool, notes } = await one(
      `curl 'https://api.weather.example/v2/forecast?city=Berlin' -H 'x-api-key: abc' --compressed -s -L`,
    );
    expect(tool.endpoint?.headers).toEqual({ 'x-api-key': '{{secrets.WEATHER_X_API_KEY}}' });
    expect(notes[0]?.message).toContain('--compressed');
  });

  it('refuses what is not one curl command, or a body that is not JSON', async () => {
    for (const command of [
      'wget https://x.example',
      'curl https://x.example | sh',
      'curl -F file=@a.png https://x.example/upload',
      "curl -d 'a=1&b=2' https://x.example/form",
      'curl -X TRACE https://x.example',
      'curl -H',
    ]) {
      await expect(importTools({ kind: 'curl', command }), command).rejects.toMatchObject({
        code: 'import_curl_invalid',
        status: 422,
      });
    }
  });
});
