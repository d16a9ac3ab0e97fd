import { checkAgentConfig } from '@agentry/config';
import type { FieldIssue } from '@agentry/errors';
import { formatIssues } from './format-issues.ts';
import { exitCode, type Io } from './io.ts';
import { readConfigFile } from './read-config-file.ts';

interface FileReport {
  file: string;
  status: 'valid' | 'invalid' | 'unreadable';
  hash?: string;
  issues?: FieldIssue[];
  message?: string;
}

/**
 * `agentry validate <file…> [--json]`: exit 0 when every file is valid, 1 when one is invalid,
 * 2 when one cannot be read.
 *
 * @example
 * await validateCommand(['configs/seed-demo-booking.json'], { json: false }, io); // 0
 */
export async function validateCommand(files: string[], options: { json: boolean }, io: Io): Promise<number> {
  if (files.length === 0) {
    io.err('usage: agentry validate <file…> [--json]\n');
    return exitCode.unreadable;
  }
  const reports: FileReport[] = [];
  for (const file of files) reports.push(await validateFile(file));
  io.out(options.json ? `${JSON.stringify(reports, null, 2)}\n` : reports.map(human).join(''));
  if (reports.some((r) => r.status === 'unreadable')) return exitCode.unreadable;
  return reports.some((r) => r.status === 'invalid') ? exitCode.invalid : exitCode.ok;
}

async function validateFile(file: string): Promise<FileReport> {
  const read = await readConfigFile(file);
  if (read.kind === 'unreadable') return { file, status: 'unreadable', message: read.message };
  if (read.kind === 'invalid_json') return { file, status: 'invalid', issues: [read.issue] };
  const result = checkAgentConfig(read.document);
  return result.ok ? { file, status: 'valid', hash: result.hash } : { file, status: 'invalid', issues: result.issues };
}

function human(report: FileReport): string {
  if (report.status === 'valid') return `✓ ${report.file} is valid (sha256 ${report.hash?.slice(0, 12)})\n`;
  if (report.status === 'unreadable') return `✗ ${report.file}: ${report.message}\n`;
  const count = report.issues?.length ?? 0;
  return `✗ ${report.file} has ${count} problem${count === 1 ? '' : 's'}:\n${formatIssues(report.issues ?? [])}\n`;
}
