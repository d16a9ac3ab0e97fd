import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * Tenant `pattern`s run on RE2 (linear time), so no pattern can hang the process (ReDoS).
 * Plugged into ajv as its regular-expression engine.
 */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const re = RE2JS.compile(pattern);
    // ajv caches compiled patterns by `toString()`: it must be unique per pattern, or every
    // pattern would share the first one compiled.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

/**
 * Why a pattern cannot run on RE2 (e.g. look-ahead, back-references), or undefined when it can.
 *
 * @example
 * linearPatternError('^(a+)+$'); // undefined: RE2 runs it in linear time
 * linearPatternError('(?=a)'); // 'invalid or unsupported Perl syntax: `(?=`'
 */
export function linearPatternError(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
