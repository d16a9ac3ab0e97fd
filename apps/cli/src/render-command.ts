import { compileAgent, maskedValues, maskSecrets, type RenderedRequest } from '@agentry/config';
import { isAppError } from '@agentry/errors';
import { formatIssues } from './format-issues.ts';
import { exitCode, type Io } from './io.ts';
import { loadValidConfig } from './read-config-file.ts';

export interface RenderOptions {
  json: boolean;
  /** `name=value` pairs for `{{context.name}}`. */
  context: string[];
  /** `NAME=value` pairs; secrets not given get a stand-in value (masked in the output anyway). */
  secrets: string[];
  /** `claim=value` pairs (and `token=…`) for `{{user.claim}}`; values not given get a stand-in (masked anyway). */
  user?: string[];
}

const demoContext = {
  tenantId: 'tenant_demo',
  agentId: 'agent_demo',
  conversationId: 'conv_demo',
  chatbotId: 'chatbot_demo',
  userId: 'user_demo',
};

/**
 * `agentry render <file> <tool> '<args-json>'`: prints the exact HTTP request the tool call would
 * send, with secrets masked. Nothing is sent.
 *
 * @example
 * await renderCommand(['configs/seed-demo-booking.json', 'save_customer_information', '{"email":"a@b.c"}'], opts, io);
 */
export async function renderCommand(positionals: string[], options: RenderOptions, io: Io): Promise<number> {
  const [file, toolName, argsText = '{}'] = positionals;
  if (!file || !toolName) {
    io.err(
      "usage: agentry render <file> <tool> '<args-json>' [--context k=v] [--secret NAME=v] [--user claim=v] [--json]\n",
    );
    return exitCode.unreadable;
  }
  const loaded = await loadValidConfig(file, io);
  if (!loaded.ok) return loaded.code;
  const agent = compileAgent(loaded.config, loaded.hash);
  const tool = agent.tools.find((t) => t.name === toolName);
  if (!tool) {
    return fail(
      io,
      `✗ no tool \`${toolName}\`; tools: ${agent.tools.map((t) => t.name).join(', ') || 'none'}\n`,
      exitCode.invalid,
    );
  }
  let args: unknown;
  try {
    args = JSON.parse(argsText);
  } catch {
    return fail(io, `✗ the arguments are not valid JSON: ${argsText}\n`, exitCode.invalid);
  }
  const checked = tool.validateArguments(args);
  if (!checked.ok)
    return fail(io, `✗ the arguments do not match the tool:\n${formatIssues(checked.issues)}\n`, exitCode.invalid);
  const secrets = { ...Object.fromEntries(tool.secretNames.map((n) => [n, `<${n}>`])), ...pairs(options.secrets) };
  // A signed-in end user's values: stand-ins for those not given, valid for the render.
  const { token, ...claims } = {
    ...Object.fromEntries(tool.userValues.map((n) => [n, `<user.${n}>`])),
    ...pairs(options.user ?? []),
  };
  const user = { claims, ...(token === undefined ? {} : { token }), expiresAt: Math.floor(Date.now() / 1000) + 3600 };
  const hidden = maskedValues({ secrets, user });
  try {
    const request = tool.render(checked.value, {
      context: { ...demoContext, ...pairs(options.context) },
      secrets,
      ...(tool.userValues.length > 0 ? { user } : {}),
    });
    io.out(options.json ? `${JSON.stringify(masked(request, hidden), null, 2)}\n` : httpText(masked(request, hidden)));
    return exitCode.ok;
  } catch (error) {
    if (!isAppError(error)) throw error;
    const details = error.issues ? `\n${formatIssues(error.issues)}` : '';
    return fail(io, `✗ ${error.message} [${error.code}]${details}\n`, exitCode.invalid);
  }
}

function masked(request: RenderedRequest, secrets: Record<string, string>): RenderedRequest {
  return JSON.parse(maskSecrets(JSON.stringify(request), secrets)) as RenderedRequest;
}

function httpText(request: RenderedRequest): string {
  const headers = Object.entries(request.headers).map(([k, v]) => `${k}: ${v}\n`);
  return `${request.method} ${request.url}\n${headers.join('')}${request.body === undefined ? '' : `\n${request.body}\n`}`;
}

function pairs(list: string[]): Record<string, string> {
  return Object.fromEntries(
    list.map((item) => {
      const at = item.indexOf('=');
      return at < 0 ? [item, ''] : [item.slice(0, at), item.slice(at + 1)];
    }),
  );
}

function fail(io: Io, message: string, code: number): number {
  io.err(message);
  return code;
}
