import { readFile } from 'node:fs/promises';
import { type AgentConfig, checkAgentConfig } from '@agentry/config';
import type { FieldIssue } from '@agentry/errors';
import { formatIssues } from './format-issues.ts';
import { exitCode, type Io } from './io.ts';

export type ReadResult =
  | { kind: 'ok'; document: unknown }
  | { kind: 'unreadable'; message: string }
  | { kind: 'invalid_json'; issue: FieldIssue };

/**
 * Reads and parses a config file, telling "cannot read" (exit 2) from "not JSON" (exit 1) apart.
 *
 * @example
 * const result = await readConfigFile('configs/seed-demo-booking.json');
 */
export async function readConfigFile(file: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      kind: 'unreadable',
      message: code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? error})`,
    };
  }
  try {
    return { kind: 'ok', document: JSON.parse(text) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      kind: 'invalid_json',
      issue: { path: '', code: 'invalid_json', message: `the file is not valid JSON: ${detail}` },
    };
  }
}

/**
 * A config file read and checked (`document`: the file's JSON as written, what an upload sends;
 * `hash`: its content hash, as the platform computes it), or the exit code after its problem was
 * written to `err`.
 */
export type LoadedConfig =
  | { ok: true; config: AgentConfig; hash: string; document: unknown }
  | { ok: false; code: (typeof exitCode)[keyof typeof exitCode] };

/**
 * Reads a config file and checks it as an upload would, writing why it cannot be used (exit 2 when
 * unreadable, 1 when not JSON or not a valid config).
 *
 * @example
 * const loaded = await loadValidConfig('configs/leave-request.json', io);
 * if (!loaded.ok) return loaded.code;
 */
export async function loadValidConfig(file: string, io: Io): Promise<LoadedConfig> {
  const read = await readConfigFile(file);
  if (read.kind === 'unreadable') {
    io.err(`✗ ${file}: ${read.message}\n`);
    return { ok: false, code: exitCode.unreadable };
  }
  if (read.kind === 'invalid_json') {
    io.err(`✗ ${file}:\n${formatIssues([read.issue])}\n`);
    return { ok: false, code: exitCode.invalid };
  }
  const loaded = checkAgentConfig(read.document);
  if (!loaded.ok) {
    io.err(`✗ ${file} is not a valid config:\n${formatIssues(loaded.issues)}\n`);
    return { ok: false, code: exitCode.invalid };
  }
  return { ok: true, config: loaded.config, hash: loaded.hash, document: read.document };
}
