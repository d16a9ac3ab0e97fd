import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const children: ChildProcess[] = [];

function run(args: string[]): { child: ChildProcess; output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return { child, output: () => ({ stdout, stderr }) };
}

async function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = await once(child, 'exit');
  return code as number | null;
}

async function waitForOutput(output: () => { stdout: string }, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = pattern.exec(output().stdout);
    if (match) return match[1] ?? match[0];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`CLI did not print ${pattern} in time; got: ${output().stdout}`);
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('fake-llm CLI', () => {
  it('serves the demo responder, prints the env lines, and stops on SIGTERM', async () => {
    const { child, output } = run(['--port', '0', '--host', '127.0.0.1']);
    const url = await waitForOutput(output, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(output().stdout).toContain(`OPENAI_BASE_URL=${url}/v1 OPENAI_API_KEY=fake`);
    expect(output().stdout).toContain(`ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=fake`);

    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'fake', maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] });
    expect(res.choices[0]?.message.content).toBe('You said: ping');

    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });

  it.each([
    [['--prot', '4010'], '--prot'],
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
  ])('rejects %j with exit code 2 naming the flag', async (args, flag) => {
    const { child, output } = run(args);
    expect(await exitCode(child)).toBe(2);
    expect(output().stderr).toContain(flag);
  });
});
