import { parseArgs } from 'node:util';
import { flowCommand } from './flow-command.ts';
import { exitCode, type Io } from './io.ts';
import { renderCommand } from './render-command.ts';
import { validateCommand } from './validate-command.ts';

const usage = `agentry — work with agent configs

  agentry validate <file…> [--json]
      Check configs. Exit 0 when all are valid, 1 when one is invalid, 2 when one cannot be read.

  agentry render <file> <tool> '<args-json>' [--context name=value]… [--secret NAME=value]… [--user claim=value]… [--json]
      Print the exact HTTP request a tool call would send (secrets and end-user values masked). Nothing is sent.

  agentry flow <file> '<message>'… [--result tool='<json>']… [--json]
      Play messages through the config's flows (triggers, pattern slots, confirmations, branches) and print
      what they say and the requests their tool steps would send. Nothing is sent; no model is asked.
`;

/**
 * Runs the CLI for an argument list (without `node` and the script) and returns the exit code.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
 */
export async function runCli(argv: string[], io: Io): Promise<number> {
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
    },
  });
}
