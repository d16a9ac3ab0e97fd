import { createHash } from 'node:crypto';
import { claimIdempotencyKey, completeIdempotencyKey, type Db, releaseIdempotencyKey } from '@agentry/db';
import { AppError } from '@agentry/errors';
import type { MiddlewareHandler } from 'hono';
import type { AuthVariables } from './auth.ts';

const MAX_KEY_LENGTH = 255;

/**
 * Honours `Idempotency-Key` on POSTs: the first request with a key runs and its JSON answer is
 * kept for 24 h; a retry with the same key and the same request gets that answer again
 * (`Idempotent-Replayed: true`) instead of creating twice. The same key with another request is
 * refused (422), and one still being handled answers 409. Only 2xx JSON answers are kept.
 */
export function idempotency(db: Db): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (c.req.method !== 'POST' || key === undefined) return next();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new AppError({
        code: 'invalid_idempotency_key',
        message: `An Idempotency-Key has 1 to ${MAX_KEY_LENGTH} characters`,
        category: 'user',
        status: 400,
      });
    }
    const tenantId = c.var.tenant.id;
    const body = await c.req.text();
    const requestHash = createHash('sha256').update(`${c.req.method} ${c.req.path}\n`).update(body).digest('hex');
    const claim = await claimIdempotencyKey(db, { tenantId, key, requestHash });
    if (!claim.claimed) {
      const { record } = claim;
      if (record.requestHash !== requestHash) {
        throw new AppError({
          code: 'idempotency_key_reused',
          message: 'This Idempotency-Key was used for a different request',
          category: 'user',
          status: 422,
        });
      }
      if (record.statusCode === null) {
        throw new AppError({
          code: 'idempotency_key_in_use',
          message: 'A request with this Idempotency-Key is still being handled',
          category: 'user',
          status: 409,
          retryable: true,
          retryAfterMs: 1000,
        });
      }
      c.header('idempotent-replayed', 'true');
      return c.json(record.responseBody as object, record.statusCode as 200);
    }
    try {
      await next();
    } catch (error) {
      await releaseIdempotencyKey(db, tenantId, key);
      throw error;
    }
    const type = c.res.headers.get('content-type') ?? '';
    // Only successes are kept: a refused or failed request may be retried with the same key.
    if (c.res.status < 200 || c.res.status >= 300 || !/json/.test(type)) {
      await releaseIdempotencyKey(db, tenantId, key);
      return;
    }
    const answer = await c.res.clone().json();
    await completeIdempotencyKey(db, tenantId, key, { statusCode: c.res.status, body: answer });
  };
}
