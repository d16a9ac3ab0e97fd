import { parseArgs } from 'node:util';
import { demoResponder, startFakeLlm } from './fake-llm/index.ts';
import type { FakeRequest } from './fake-llm/types.ts';

const USAGE = 'Usage: node packages/testkit/src/cli.ts [--port 4010] [--host 127.0.0.1]';

interface CliOptions {
  port: number;
  host: string;
}

/** Parses the flags; throws an Error naming the offending flag. */
function parseOptions(argv: string[]): CliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const port = Number(values.port ?? '4010');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer between 0 and 65535, got '${values.port}'`);
  }
  const host = values.host ?? '127.0.0.1';
  if (!host) throw new Error('--host must not be empty');
  return { port, host };
}

/** One log line per model call, so a demo shows what the agent asked for. */
function logRequest(req: FakeRequest): void {
  const model = typeof req.body?.model === 'string' ? req.body.model : '?';
  console.log(
    `${new Date().toISOString()} POST ${req.path} (${req.protocol}, model ${model}${req.stream ? ', stream' : ''})`,
  );
}

function banner(url: string, openaiBaseUrl: string): string {
  return [
    `Fake LLM listening on ${url} (demo responder)`,
    `  OpenAI base URL:    ${openaiBaseUrl}`,
    `  Anthropic base URL: ${url}`,
    'Point an app at it with:',
    `  OPENAI_BASE_URL=${openaiBaseUrl} OPENAI_API_KEY=fake`,
    `  ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=fake`,
    'Ctrl-C to stop.',
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  let options: CliOptions | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error(`fake-llm: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  const fake = await startFakeLlm({
    port: options.port,
    host: options.host,
    responder: (req) => {
      logRequest(req);
      return demoResponder(req);
    },
  });
  console.log(banner(fake.url, fake.openaiBaseUrl));
  const stop = () => {
    fake.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`fake-llm: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
