import {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorCodeWithStatus,
  type ErrorStatus,
  type NotFoundResource,
} from '@agentry/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AppError } from './app-error.ts';
import { errors } from './errors.ts';

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

describe('AppError', () => {
  it('takes its status from the table, for every code', () => {
    for (const code of CODES) {
      expect(new AppError({ code, message: 'x', category: 'system' }).status, code).toBe(ERROR_STATUS[code]);
      expect(errors.of({ code, message: 'x', category: 'user' }).status, code).toBe(ERROR_STATUS[code]);
    }
  });

  it('survives toJSON and fromJSON with the same code and status', () => {
    const error = errors.upstream('model_rate_limited', 'slow down', { retryable: true, details: { provider: 'x' } });
    const back = AppError.fromJSON(error.toJSON());
    expect(back).toMatchObject({ code: 'model_rate_limited', status: 429, isRetryable: true, category: 'upstream' });
    expect(back.details).toEqual({ provider: 'x' });
  });

  it('only types codes of the table, and takes no status (the table gives it)', () => {
    // @ts-expect-error a code missing from the table
    expect(new AppError({ code: 'no_such_code', message: 'x', category: 'user' }).status).toBe(400);
    // @ts-expect-error a status of its own, even the table's
    void new AppError({ code: 'missing_secret', message: 'x', category: 'user', status: 409 });
    expect(new AppError({ code: 'missing_secret', message: 'x', category: 'user' }).status).toBe(409);
    // @ts-expect-error a code missing from the table
    void errors.of({ code: 'no_such_code', message: 'x', category: 'user' });
    // @ts-expect-error errors.of takes no status
    void errors.of({ code: 'missing_secret', message: 'x', category: 'user', status: 409 });
  });
});

describe('errors.*', () => {
  it('accept only codes of their status, and answer with it', () => {
    expectTypeOf<(typeof ERROR_STATUS)[Parameters<typeof errors.badRequest>[0]]>().toEqualTypeOf<400>();
    expectTypeOf<(typeof ERROR_STATUS)[Parameters<typeof errors.conflict>[0]]>().toEqualTypeOf<409>();
    expectTypeOf<(typeof ERROR_STATUS)[NonNullable<Parameters<typeof errors.validation>[2]>]>().toEqualTypeOf<422>();
    expectTypeOf<(typeof ERROR_STATUS)[Parameters<typeof errors.unavailable>[0]]>().toEqualTypeOf<503>();
    expectTypeOf<(typeof ERROR_STATUS)[Parameters<typeof errors.system>[0]]>().toEqualTypeOf<500>();
    expectTypeOf<(typeof ERROR_STATUS)[`${NotFoundResource}_not_found`]>().toEqualTypeOf<404>();
    expectTypeOf<(typeof ERROR_STATUS)[ErrorCode]>().toEqualTypeOf<ErrorStatus>();
    // @ts-expect-error a 404 code is no conflict
    void errors.conflict('agent_not_found', 'x');

    const byStatus = (status: number) => CODES.filter((code) => ERROR_STATUS[code] === status);
    for (const code of byStatus(400) as ErrorCodeWithStatus<400>[])
      expect(errors.badRequest(code, 'x').status).toBe(400);
    for (const code of byStatus(409) as ErrorCodeWithStatus<409>[]) expect(errors.conflict(code, 'x').status).toBe(409);
    for (const code of byStatus(422) as ErrorCodeWithStatus<422>[]) {
      expect(errors.validation('x', [], code).status).toBe(422);
    }
    for (const code of byStatus(503) as ErrorCodeWithStatus<503>[])
      expect(errors.unavailable(code, 'x').status).toBe(503);
    for (const code of byStatus(500) as ErrorCodeWithStatus<500>[]) {
      expect(errors.system(code, 'x')).toMatchObject({ status: 500, category: 'system', isRetryable: false });
    }
    for (const code of byStatus(404)) {
      const resource = code.replace(/_not_found$/, '') as NotFoundResource;
      expect(errors.notFound(resource, 'id-1')).toMatchObject({ code, status: 404 });
    }
    expect(errors.invalidJson()).toMatchObject({ code: 'invalid_json', status: 400 });
    expect(errors.unauthorized()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(errors.forbidden()).toMatchObject({ code: 'forbidden', status: 403 });
    expect(errors.payloadTooLarge(10)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(errors.modelNotConfigured()).toMatchObject({ code: 'model_not_configured', status: 503 });
    expect(errors.internal('x')).toMatchObject({ code: 'internal_error', status: 500, isRetryable: false });
    expect(errors.upstream('mail_failed', 'x', { retryable: true })).toMatchObject({
      status: 502,
      category: 'upstream',
    });
  });
});
