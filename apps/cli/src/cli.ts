import { parseArgs } from 'node:util';
import { flowCommand } from './flow-command.ts';
import { exitCode, type Io } from './io.ts';
import { renderCommand } from './render-command.ts';
import { type CliEnv, DEFAULT_API_URL, testCommand } from './test-command.ts';
import { validateCommand } from './validate-command.ts';

const usage = `agentry — work with agent configs

  agentry validate <file…> [--json]
      Check configs. Exit 0 when all are valid, 1 when one is invalid, 2 when one cannot be read.

  agentry render <file> <tool> '<args-json>' [--context name=value]… [--secret NAME=value]… [--user claim=value]… [--json]
      Print the exact HTTP request a tool call would send (secrets and end-user values masked). Nothing is sent.

  agentry flow <file> '<message>'… [--result tool='<json>']… [--json]
      Play messages through the config's flows (triggers, pattern slots, confirmations, branches) and print
      what they say and the requests their tool steps would send. Nothing is sent; no model is asked.

  agentry test <file> [--cases <file>] [--model agent|demo|provider/model] [--judge-model <model>]
               [--repetitions <n>] [--threshold <0–1>] [--agent <id>] [--api-url <url>] [--key <key>]
               [--timeout <seconds>] [--json]
      Run an agent's test cases on the platform against this config (for CI). The config is checked
      here first, then uploaded as a draft version (unless the agent's latest version is the same
      config) of the agent --agent names (else the one with the config's name, else a new unpublished
      one). --cases: a JSON file of cases (an export document {"tests": […]} or an array) run instead
      of the agent's stored ones. Tool calls answer from the cases' fixtures; nothing is sent.
      Prints a line per case and each failing expectation with what happened, tokens and cost;
      --json prints the finished test run as JSON. Exit 0 when the run passed, 1 when it failed
      (or the config is invalid), 2 when the API cannot be reached or refuses, the cases file
      cannot be read, or no verdict came within --timeout (default 600 s).
      Environment: AGENTRY_API_URL (default ${DEFAULT_API_URL}), AGENTRY_API_KEY (required: a
      secret key with agents:read and agents:write), AGENTRY_AGENT_ID.
`;

/**
 * Runs the CLI for an argument list (without `node` and the script) and returns the exit code.
 * `env` is where `agentry test` finds what its options do not say (`main` passes the process's).
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }, process.env);
 */
export async function runCli(argv: string[], io: Io, env: CliEnv = {}): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    return exitCode.unreadable;
  }
  const [command, ...rest] = parsed.positionals;
  const json = parsed.values.json ?? false;
  if (command === 'validate') return validateCommand(rest, { json }, io);
  if (command === 'render') {
    const { context = [], secret = [], user = [] } = parsed.values;
    return renderCommand(rest, { json, context, secrets: secret, user }, io);
  }
  if (command === 'flow') return flowCommand(rest, { json, results: parsed.values.result ?? [] }, io);
  if (command === 'test') {
    const { values } = parsed;
    const options = {
      json,
      apiUrl: values['api-url'],
      key: values.key,
      agent: values.agent,
      cases: values.cases,
      model: values.model,
      judgeModel: values['judge-model'],
      repetitions: values.repetitions,
      threshold: values.threshold,
      timeout: values.timeout,
    };
    return testCommand(rest, options, env, io);
  }
  (parsed.values.help ? io.out : io.err)(usage);
  return parsed.values.help ? exitCode.ok : exitCode.unreadable;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      context: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true },
      user: { type: 'string', multiple: true },
      result: { type: 'string', multiple: true },
      'api-url': { type: 'string' },
      key: { type: 'string' },
      agent: { type: 'string' },
      cases: { type: 'string' },
      model: { type: 'string' },
      'judge-model': { type: 'string' },
      repetitions: { type: 'string' },
      threshold: { type: 'string' },
      timeout: { type: 'string' },
    },
  });
}
