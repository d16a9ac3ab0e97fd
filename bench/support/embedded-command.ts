/**
 * How `pnpm start` runs the embedded mode, read from the root package.json's `start` script (its
 * last command: `[VAR=value …] node [--flag …] apps/api/src/main.ts --embedded`), so the benches
 * measure the process a newcomer gets — its memory settings included — with one home for them.
 *
 * @example
 * const { env, nodeFlags } = embeddedCommand();
 * spawn(process.execPath, [...nodeFlags, 'apps/api/src/main.ts', '--embedded'], { env: { ...env } });
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface EmbeddedCommand {
  /** Environment the script sets for the process (e.g. the C library's allocator settings). */
  env: Record<string, string>;
  /** Node's own flags ahead of the entry point. */
  nodeFlags: string[];
}

const COMMAND = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)node\s+((?:--\S+\s+)*)apps\/api\/src\/main\.ts --embedded$/;

export function embeddedCommand(): EmbeddedCommand {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const last = pkg.scripts.start?.split('&&').at(-1)?.trim() ?? '';
  const match = COMMAND.exec(last);
  if (!match)
    throw new Error(`package.json's start script no longer ends in the embedded command the benches read: ${last}`);
  const env = Object.fromEntries(
    match[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  return { env, nodeFlags: match[2]!.trim().split(/\s+/).filter(Boolean) };
}
