import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError, toAppError } from './app-error.ts';
import { classifyInfrastructureError } from './infrastructure-errors.ts';

// The shapes as the drivers throw them, written from their sources (no driver imported here; the
// real drivers' errors are in infrastructure-errors.drivers.test.ts).
const socketCodes = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];
const postgresJsCodes = ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'];
const transientSqlstates = [
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '40001',
  '40P01',
];
const otherSqlstates = ['23505', '23503', '42P01', '42703', '22P02', '08P01', '42501', 'P0001'];
const redisMessages = [
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'LOADING Redis is loading the dataset in memory',
];

const withProps = (error: Error, props: Record<string, unknown>) => Object.assign(error, props);

const socketError = fc
  .record({ code: fc.constantFrom(...socketCodes), port: fc.integer({ min: 1, max: 65535 }) })
  .map(({ code, port }) =>
    withProps(new Error(`connect ${code} 127.0.0.1:${port}`), { code, errno: -111, syscall: 'connect', port }),
  );
/** Node's connect to a name with several addresses (autoSelectFamily) fails with all of them. */
const aggregateSocketError = fc
  .array(socketError, { minLength: 1, maxLength: 3 })
  .map((errors) => withProps(new AggregateError(errors, ''), { code: errors[0]?.code }));
const postgresJsError = fc
  .constantFrom(...postgresJsCodes)
  .map((code) => withProps(new Error(`write ${code} 127.0.0.1:5432`), { code, errno: code, address: '127.0.0.1' }));
const sqlstateError = (codes: string[]) =>
  fc
    .record({ code: fc.constantFrom(...codes), name: fc.constantFrom('PostgresError', 'DatabaseError') })
    .map(({ code, name }) =>
      withProps(new Error(`server said ${code}`), { name, code, severity: 'FATAL', routine: 'ProcessInterrupts' }),
    );
const redisError = fc.oneof(
  fc.constantFrom(...redisMessages).map((message) => new Error(message)),
  fc.constant(
    withProps(new Error('Reached the max retries per request limit (which is 1).'), {
      name: 'MaxRetriesPerRequestError',
    }),
  ),
);

/** Wraps an error the ways our stack does: drizzle's "Failed query", plain causes, plain objects. */
function wrapped(leaf: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const wrapper = fc.constantFrom<(cause: unknown) => unknown>(
    (cause) => withProps(new Error('Failed query: select 1\nparams: ', { cause }), { name: 'DrizzleQueryError' }),
    (cause) => new Error('while loading the run', { cause }),
    (cause) => ({ message: 'a plain object', cause }),
    (cause) => new AggregateError([new Error('another'), cause], 'several'),
  );
  return fc
    .tuple(leaf, fc.array(wrapper, { maxLength: 8 }))
    .map(([error, wrappers]) => wrappers.reduce((inner, wrap) => wrap(inner), error));
}

const knownWords = /Connection is closed|Stream isn't writeable|max retries per request|^(LOADING|MASTERDOWN|TRYAGAIN)/;
const otherError = fc.oneof(
  fc
    .record({ message: fc.string(), code: fc.option(fc.string({ maxLength: 12 })) })
    .filter(({ message, code }) => !knownWords.test(message) && !isKnownCode(code))
    .map(({ message, code }) => withProps(new Error(message), code === null ? {} : { code })),
  sqlstateError(otherSqlstates),
  // An HTTP call that could not connect: its caller maps it (tool, webhook, model), not us.
  socketError.map((cause) => new TypeError('fetch failed', { cause })),
  fc.anything(),
);

function isKnownCode(code: string | null): boolean {
  if (code === null) return false;
  return [...socketCodes, ...postgresJsCodes, ...transientSqlstates].includes(code) || /^08/.test(code);
}

describe('classifyInfrastructureError and toAppError', () => {
  it('database faults, however wrapped, become a retryable 503 database_unavailable keeping the cause', () => {
    const leaf = fc.oneof(socketError, aggregateSocketError, postgresJsError, sqlstateError(transientSqlstates));
    fc.assert(
      fc.property(wrapped(leaf), (error) => {
        const appError = toAppError(error);
        expect(appError).toMatchObject({ code: 'database_unavailable', category: 'system', status: 503 });
        expect(appError.isRetryable).toBe(true);
        expect(appError.retryAfterMs).toBeGreaterThanOrEqual(1000);
        expect(appError.retryAfterMs).toBeLessThanOrEqual(2000);
        expect(appError.cause).toBe(error);
      }),
    );
  });

  it('Redis faults, however wrapped, become a retryable 503 queue_unavailable', () => {
    fc.assert(
      fc.property(wrapped(redisError), (error) => {
        expect(toAppError(error)).toMatchObject({ code: 'queue_unavailable', status: 503, isRetryable: true });
      }),
    );
  });

  it('anything else, however wrapped, stays a non-retryable internal_error', () => {
    fc.assert(
      fc.property(wrapped(otherError), (error) => {
        expect(classifyInfrastructureError(error)).toBeUndefined();
        expect(toAppError(error)).toMatchObject({ code: 'internal_error', status: 500, isRetryable: false });
      }),
    );
  });

  it('an AppError passes through unchanged, even one caused by an outage', () => {
    const original = new AppError({ code: 'run_cancelled', message: 'x', category: 'user' });
    (original as { cause?: unknown }).cause = withProps(new Error('reset'), { code: 'ECONNRESET' });
    expect(toAppError(original)).toBe(original);
  });

  it('a cause chain that loops, or getters that throw, end the walk instead of hanging or throwing', () => {
    const loop = new Error('outer') as Error & { cause?: unknown };
    loop.cause = new Error('inner', { cause: loop });
    expect(classifyInfrastructureError(loop)).toBeUndefined();
    const hostile = Object.defineProperty(new Error('x'), 'cause', {
      get() {
        throw new Error('no');
      },
    });
    expect(toAppError(hostile).code).toBe('internal_error');
  });

  it('the walk is bounded: a fault buried under more wrappers than it follows is not found', () => {
    const buried = Array.from({ length: 100 }).reduce<unknown>(
      (inner) => new Error('wrapper', { cause: inner }),
      withProps(new Error('reset'), { code: 'ECONNRESET' }),
    );
    expect(classifyInfrastructureError(buried)).toBeUndefined();
  });
});
