import type { ToolExecutor } from '@agentry/agent';
import { compileAgent, maskedValues, maskSecrets } from '@agentry/config';
import { compileFlows, type FlowState, matchTrigger, runFlowTurn, startFlowState } from '@agentry/flows';
import { exitCode, type Io } from './io.ts';
import { loadValidConfig } from './read-config-file.ts';

export interface FlowOptions {
  json: boolean;
  /** `tool=<json>` pairs: what a tool step's (unsent) call returns; `{}` otherwise. */
  results: string[];
}

interface TurnView {
  said: string;
  flow?: string;
  replies: string[];
  requests: string[];
  state?: FlowState;
}

const demoContext = {
  tenantId: 'tenant_demo',
  agentId: 'agent_demo',
  conversationId: 'conv_demo',
  chatbotId: 'chatbot_demo',
  userId: 'user_demo',
};

/**
 * `agentry flow <file> <message>…`: plays messages through the config's flows as the platform would —
 * trigger patterns, slots read by their patterns, confirmations, branches — and prints what each
 * flow says and the requests its tool steps would send (secrets masked). Nothing is sent and no
 * model is asked: a slot without a pattern is reported as needing the model.
 *
 * @example
 * await flowCommand(['configs/leave-request.json', 'leave request', '2026-12-01'], { json: false, results: [] }, io);
 */
export async function flowCommand(positionals: string[], options: FlowOptions, io: Io): Promise<number> {
  const [file, ...messages] = positionals;
  if (!file || messages.length === 0) {
    io.err("usage: agentry flow <file> '<message>'… [--result tool='<json>']… [--json]\n");
    return exitCode.unreadable;
  }
  const loaded = await loadValidConfig(file, io);
  if (!loaded.ok) return loaded.code;
  const flows = compileFlows(loaded.config.flows ?? []);
  if (flows.length === 0) return fail(io, `✗ ${file} has no flows\n`, exitCode.invalid);
  let results: Record<string, unknown>;
  try {
    results = Object.fromEntries(options.results.map((pair) => [before(pair), JSON.parse(after(pair))]));
  } catch {
    return fail(
      io,
      '✗ --result needs tool=<json>, e.g. --result create_leave_request=\'{"id":"LR-1"}\'\n',
      exitCode.invalid,
    );
  }
  const agent = compileAgent(loaded.config, loaded.hash);
  const turns: TurnView[] = [];
  let requests: string[] = [];
  const tools: ToolExecutor = {
    definitions: () => agent.toolDefinitions,
    async execute(call) {
      const tool = agent.tools.find((t) => t.name === call.name);
      if (!tool) return { isError: true, errorCode: 'unknown_tool', output: { error: 'unknown_tool' } };
      const checked = tool.validateArguments(call.arguments);
      if (!checked.ok) return { isError: true, errorCode: 'invalid_arguments', output: { issues: checked.issues } };
      const secrets = Object.fromEntries(tool.secretNames.map((n) => [n, `<${n}>`]));
      const request = tool.render(checked.value, { context: demoContext, secrets });
      const text = `${request.method} ${request.url}${request.body === undefined ? '' : ` ${request.body}`}`;
      requests.push(maskSecrets(text, maskedValues({ secrets })));
      return { isError: false, output: results[call.name] ?? {} };
    },
  };
  let state: FlowState | undefined;
  for (const said of messages) {
    requests = [];
    const active = state?.status === 'active' ? flows.find((f) => f.name === state?.flow) : undefined;
    const triggered = active ? undefined : matchTrigger(flows, said)?.flow;
    const flow = active ?? triggered;
    if (!flow) {
      turns.push({ said, replies: [], requests });
      state = undefined;
      continue;
    }
    const turn = await runFlowTurn(flow, active && state ? state : startFlowState(flow), said, {
      tools,
      context: demoContext,
      callId: (step, visit) => `${step}_${visit}`,
      emit: () => undefined,
      step: 0,
      signal: AbortSignal.timeout(30_000),
    });
    state = turn.state;
    turns.push({ said, flow: flow.name, replies: turn.replies, requests, state });
  }
  io.out(options.json ? `${JSON.stringify(turns, null, 2)}\n` : turns.map(turnText).join(''));
  return exitCode.ok;
}

function turnText(turn: TurnView): string {
  const lines = [`> ${turn.said}`];
  if (!turn.flow) lines.push('  (no flow: the model would answer)');
  for (const request of turn.requests) lines.push(`  → ${request}`);
  for (const reply of turn.replies) lines.push(`< ${reply}`);
  if (turn.state) {
    const where = turn.state.status === 'active' ? `at ${turn.state.step}` : turn.state.status;
    lines.push(`  [${turn.flow} ${where}; slots ${JSON.stringify(turn.state.slots)}]`);
  }
  return `${lines.join('\n')}\n`;
}

function before(pair: string): string {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error('no =');
  return pair.slice(0, at);
}

function after(pair: string): string {
  return pair.slice(pair.indexOf('=') + 1);
}

function fail(io: Io, message: string, code: number): number {
  io.err(message);
  return code;
}
