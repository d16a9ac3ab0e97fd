/**
 * `pnpm test:chaos`: the chaos suite's long form (CHAOS_SECONDS of load, default 600) or, with
 * CHAOS_FORM=short, the CI form. CHAOS_FAULTS=<words,…> keeps only the faults whose name contains
 * one of them. Prints the summary table; exits 1 when an invariant broke.
 *
 *   pnpm test:chaos                                  # 10 minutes
 *   CHAOS_FORM=short pnpm test:chaos                 # the CI form (about 2.5 minutes)
 *   CHAOS_FORM=short CHAOS_FAULTS=redis pnpm test:chaos
 */
import { FAULTS } from './faults.ts';
import { chaosPrerequisitesMissing, longForm, runChaos, SHORT_FORM } from './suite.ts';

// The one place the suite reads the environment.
const setting = (name: string): string | undefined => process.env[name];

const missing = chaosPrerequisitesMissing();
if (missing) {
  console.warn(`[chaos] NOTICE: ${missing}: the chaos suite is SKIPPED.`);
  process.exit(0);
}
const seconds = Number(setting('CHAOS_SECONDS') ?? 600);
if (!Number.isFinite(seconds) || seconds < 10) {
  console.error('CHAOS_SECONDS: use a number of seconds ≥ 10');
  process.exit(2);
}
// Ctrl-C or a kill: exit, so the exit handlers stop the private servers and the processes.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const words = setting('CHAOS_FAULTS')?.split(',').filter(Boolean);
const faults = words ? FAULTS.filter((f) => words.some((w) => f.name.includes(w))) : FAULTS;
const options = setting('CHAOS_FORM') === 'short' ? SHORT_FORM : longForm(seconds);
const { results, report } = await runChaos({ ...options, faults, log: (line) => console.log(line) });
console.log(report);
process.exit(results.some((r) => r.violations.length > 0) ? 1 : 0);
