import { describe, expect, it } from 'vitest';
import { EnvError, envBoolean, envInt } from './env.ts';

describe('environment values', () => {
  it('reads booleans, with a fallback when unset, and names the variable on a bad value', () => {
    expect(envBoolean({}, 'DATABASE_PREPARED_STATEMENTS', true)).toBe(true);
    expect(envBoolean({ DATABASE_PREPARED_STATEMENTS: 'false' }, 'DATABASE_PREPARED_STATEMENTS', true)).toBe(false);
    expect(envBoolean({ DATABASE_PREPARED_STATEMENTS: ' 0 ' }, 'DATABASE_PREPARED_STATEMENTS', true)).toBe(false);
    expect(envBoolean({ FLAG: 'YES' }, 'FLAG', false)).toBe(true);
    expect(() => envBoolean({ DATABASE_PREPARED_STATEMENTS: 'off-ish' }, 'DATABASE_PREPARED_STATEMENTS', true)).toThrow(
      new EnvError('DATABASE_PREPARED_STATEMENTS', 'expected true or false, got "off-ish"'),
    );
  });

  it('reads whole numbers within their range', () => {
    expect(envInt({ PORT: '8080' }, 'PORT', 3000, [0, 65535])).toBe(8080);
    expect(() => envInt({ PORT: '70000' }, 'PORT', 3000, [0, 65535])).toThrow(/PORT/);
  });
});
