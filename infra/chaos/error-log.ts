/**
 * Counts the error and fatal lines (pino JSON, level ≥ 40, warn) the platform's processes logged during
 * a chaos run, by process role and message, so the report names the log lines behind a failure.
 *
 * @example
 * const errors = createErrorLog();
 * errors.add('worker-1', line);
 * console.log(errors.format());
 */
export interface ErrorLog {
  add(process: string, line: string): void;
  format(): string;
}

const ERROR_LEVEL = 40;
const SHOWN = 12;

export function createErrorLog(): ErrorLog {
  const counts = new Map<string, { n: number; example: string }>();
  return {
    add(process, line) {
      if (!line.startsWith('{')) {
        // Not JSON: an uncaught error's stack or a runtime warning; both are worth seeing.
        if (/error|warning/i.test(line) && !line.startsWith('    at '))
          bump(counts, `${role(process)} (raw) ${line.slice(0, 160)}`, line);
        return;
      }
      let entry: { level?: number; msg?: string; err?: { code?: string; message?: string }; error?: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if ((entry.level ?? 0) < ERROR_LEVEL) return;
      const what = entry.err?.code ?? entry.err?.message?.slice(0, 80) ?? String(entry.error ?? '').slice(0, 80);
      bump(counts, `${role(process)} "${entry.msg}" ${what}`, line);
    },
    format() {
      const top = [...counts.entries()].sort((a, b) => b[1].n - a[1].n).slice(0, SHOWN);
      if (top.length === 0) return 'Process error lines: none';
      return [
        'Process error lines (level ≥ warn), by message:',
        ...top.map(([k, v]) => `  ${v.n}× ${k}\n      e.g. ${v.example.slice(0, 300)}`),
      ].join('\n');
    },
  };
}

function role(process: string): string {
  return process.replace(/-\d+$/, '');
}

function bump(counts: Map<string, { n: number; example: string }>, key: string, line: string): void {
  const entry = counts.get(key);
  if (entry) entry.n++;
  else counts.set(key, { n: 1, example: line });
}
