/**
 * The chaos suite's summary: one row per invariant (checked, violations, up to 5 example ids)
 * and one row per injected fault (when, how long, violations whose time span overlaps it).
 *
 * @example
 * console.log(formatReport(results, faults, { startedAt }));
 */
import type { FaultRecord } from './faults.ts';
import type { InvariantResult, Violation } from './invariants.ts';

/** A violation belongs to a fault when its span overlaps the fault's window (plus 5 s of after-effects). */
const AFTER_EFFECT_MS = 5000;

export function overlaps(v: Violation, fault: FaultRecord): boolean {
  return v.from <= fault.endedAt + AFTER_EFFECT_MS && v.to >= fault.startedAt;
}

/** One line per invariant, for an assertion message: name, counts and up to 5 examples. */
export function describeResult(result: InvariantResult): string {
  const examples = result.violations.slice(0, 5).map((v) => `${v.id}: ${v.detail}`);
  return `${result.name}: ${result.violations.length} violation(s) of ${result.checked} checked${
    examples.length ? `\n    ${examples.join('\n    ')}` : ''
  }`;
}

/**
 * The summary: the invariants, then per fault the messages sent during it (so a clean row with no
 * traffic reads as untested, not as passed) and the violations overlapping it.
 */
export function formatReport(
  results: InvariantResult[],
  faults: FaultRecord[],
  load: { startedAt: number; sentAt: number[] },
): string {
  const lines = ['', 'Chaos suite: invariants', pad(['invariant', 'checked', 'violations', 'result'], [46, 9, 11, 6])];
  for (const r of results)
    lines.push(
      pad(
        [r.name, String(r.checked), String(r.violations.length), r.violations.length ? 'FAIL' : 'ok'],
        [46, 9, 11, 6],
      ),
    );
  const short = results.map((_, i) => `I${i + 1}`);
  const widths = [32, 6, 7, 6, ...short.map(() => 4), 20];
  lines.push('', 'Chaos suite: per fault, messages sent and violations overlapping it (I1… = the invariants above)');
  lines.push(pad(['fault', 'at s', 'took s', 'msgs', ...short, 'injection'], widths));
  const firstFault = faults[0]?.startedAt ?? Date.now();
  const steady: FaultRecord = {
    name: 'load before the first fault',
    startedAt: load.startedAt,
    endedAt: firstFault - AFTER_EFFECT_MS - 1,
  };
  for (const fault of [steady, ...faults]) {
    const until = fault === steady ? firstFault : fault.endedAt;
    const counts = results.map((r) => String(r.violations.filter((v) => overlaps(v, fault)).length));
    const sent = load.sentAt.filter((t) => t >= fault.startedAt && t <= until + AFTER_EFFECT_MS).length;
    lines.push(
      pad(
        [
          fault.name,
          ((fault.startedAt - load.startedAt) / 1000).toFixed(0),
          ((until - fault.startedAt) / 1000).toFixed(1),
          String(sent),
          ...counts,
          fault.error ?? 'ok',
        ],
        widths,
      ),
    );
  }
  lines.push('', ...results.filter((r) => r.violations.length).map(describeResult));
  return lines.join('\n');
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' ');
}
