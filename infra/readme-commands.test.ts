/**
 * The README's commands as a newcomer runs them: in a fresh copy of the repository (no
 * node_modules, no .data), with no model variables in the environment, each block the README marks
 * `<!-- readme-test: … -->` is run exactly as written, and what it prints is used as the newcomer
 * would (the banner's `curl`, sent as that curl sends it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './local-topology.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/**
 * The command of the `sh` block right after `<!-- readme-test: id -->`: comment lines dropped,
 * continued lines joined.
 */
export function readmeCommand(text: string, id: string): string {
  const marker = text.indexOf(`<!-- readme-test: ${id} -->`);
  if (marker < 0) throw new Error(`README has no block marked readme-test: ${id}`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(marker));
  if (!block) throw new Error(`no sh block after readme-test: ${id}`);
  return block[1]!
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .trim();
}

/** The request of the banner's "Talk to the demo agent" curl, as curl would send it. */
function bannerCurl(output: string): { url: string; headers: Record<string, string>; body: string } {
  const at = output.indexOf('Talk to the demo agent:');
  const lines = output.slice(at).split('\n').slice(1, 4).join(' ').replace(/\\\s+/g, ' ');
  const url = /curl -s -X POST (\S+)/.exec(lines)?.[1];
  const headers = Object.fromEntries(
    [...lines.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
  );
  const body = /-d '([^']+)'/.exec(lines)?.[1];
  if (!url || !body) throw new Error(`no curl in the banner:\n${output}`);
  return { url, headers, body };
}

/** A fresh copy of the working tree: what `git clone` gives, plus uncommitted changes. */
function freshCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-readme-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  })
    .toString()
    .split('\0')
    .filter((f) => f && existsSync(join(repoRoot, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(repoRoot, file), join(dir, file));
  }
  return dir;
}

/** The newcomer's environment: their PATH and home (npm's cache), no model and no database variables. */
function newcomerEnv(extra: Record<string, string>): Record<string, string> {
  const keep = ['HOME', 'TMPDIR', 'LANG'];
  // The shell's PATH, without what the test runner's pnpm/npx put in front of it (their bins).
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.includes('node_modules') && !dir.includes('/_npx/'))
    .join(':');
  return {
    PATH: path,
    ...Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : []))),
    ...extra,
  };
}

interface Running {
  child: ChildProcess;
  output(): string;
  waitFor(text: string, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

/** Runs a command as a newcomer's shell would, in its own process group (so Ctrl-C reaches all of it). */
function run(command: string, cwd: string, env: Record<string, string>): Running {
  const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return {
    child,
    output: () => out,
    waitFor: (text, timeoutMs) =>
      new Promise((resolve, reject) => {
        const until = Date.now() + timeoutMs;
        const check = setInterval(() => {
          if (out.includes(text)) {
            clearInterval(check);
            resolve(out);
          } else if (child.exitCode !== null || Date.now() > until) {
            clearInterval(check);
            reject(new Error(`"${text}" not printed (exit ${child.exitCode}) by: ${command}\n${out.slice(-4000)}`));
          }
        }, 200);
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        try {
          process.kill(-child.pid!, 'SIGINT');
        } catch {
          resolve();
        }
        setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {}
        }, 15_000).unref();
      }),
  };
}

async function sendBannerCurl(output: string): Promise<any> {
  const { url, headers, body } = bannerCurl(output);
  const res = await fetch(url, { method: 'POST', headers, body });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const gitCheckout = existsSync(join(repoRoot, '.git'));
if (!gitCheckout) console.warn('[readme-commands] NOTICE: not a git checkout: the README command tests are SKIPPED.');

describe.runIf(gitCheckout)('the README’s commands on a fresh copy, with no model account', () => {
  let dir: string;
  // One port for both starts, as the README's 3000: the seeded agent's tool calls the platform there.
  let port: number;
  const running: Running[] = [];
  beforeAll(async () => {
    dir = freshCopy();
    port = await freePort();
  });
  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the first command installs and starts; the printed curl answers with a successful demo tool call', async () => {
    const start = run(readmeCommand(readme, 'first-start'), dir, newcomerEnv({ PORT: String(port) }));
    running.push(start);
    const output = await start.waitFor('Start a new conversation:', 420_000);
    expect(output).toContain('built-in DEMO model, not an AI');
    const answer = await sendBannerCurl(output);
    expect(answer.status).toBe('completed');
    expect(answer.tool_calls).toMatchObject([
      {
        name: 'save_customer_information',
        is_error: false,
        output: { saved: true, contact: { email: 'john@example.com' } },
      },
    ]);
    expect(answer.reply).toContain('Done: I called save_customer_information');
    expect(answer.meta.demo_model).toBe(true);
    await start.stop();
  }, 480_000);

  it('with the fake model: stop the first server, start the fake model and the platform as written', async () => {
    const fake = run(readmeCommand(readme, 'fake-llm'), dir, newcomerEnv({}));
    running.push(fake);
    await fake.waitFor('Fake LLM listening', 120_000);
    const start = run(readmeCommand(readme, 'start-with-fake-llm'), dir, newcomerEnv({ PORT: String(port) }));
    running.push(start);
    const output = await start.waitFor('Start a new conversation:', 300_000);
    expect(output).not.toContain('DEMO model');
    const answer = await sendBannerCurl(output);
    expect(answer.tool_calls).toMatchObject([{ name: 'save_customer_information', is_error: false }]);
    expect(answer.meta).toMatchObject({ demo_model: false, model: { provider: 'openai' } });
    expect(fake.output()).toContain('POST /v1/chat/completions');
  }, 480_000);
});
