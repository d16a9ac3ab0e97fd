import { readFile } from 'node:fs/promises';
import type { FieldIssue } from '@agentry/errors';

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
