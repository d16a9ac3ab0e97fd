import { createHash, randomUUID } from 'node:crypto';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type Db,
  type IdempotencyHold,
  type IdempotentResource,
  idempotencyKeyInUse,
  releaseIdempotencyKey,
  renewIdempotencyKey,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuthVariables } from './auth.ts';

const MAX_KEY_LENGTH = 255;

/**
 * A reservation's lease by default: renewed every third of it while its request works, so it only
 * needs to outlast a renewal missed to a hiccup, and a dead request's key is taken over soon after.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 15_000;

/** A request's hold on its key, for the route: link what it creates, or answer with what was. */
export interface IdempotencyScope extends IdempotencyHold {
  /** What a request with the same key and body created before it died, when this one took over. */
  created?: IdempotentResource;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `idempotency()` for a POST with an `Idempotency-Key`. */
    idempotency?: IdempotencyScope;
  }
}

/**
 * Honours `Idempotency-Key` on POSTs: the first request with a key runs and its JSON answer is
 * kept for 24 h; a retry with the same key and the same request gets that answer again
 * (`Idempotent-Replayed: true`) instead of creating twice. The same key with another request is
 * refused (422), and one still being handled answers 409 while its lease (`leaseMs`) runs. A
 * reservation whose lease ran out without an answer belongs to a request that died: the next retry
 * takes it over, and the route answers with what the dead request created (`createdBefore`) or
 * runs again. A live request renews its lease as it works. Only 2xx JSON answers are kept.
 *
 * @example
 * app.use('*', idempotency(db, { leaseMs: DEFAULT_IDEMPOTENCY_LEASE_MS }));
 */
export function idempotency(db: Db, options: { leaseMs: number }): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (c.req.method !== 'POST' || key === undefined) return next();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw errors.of({
        code: 'invalid_idempotency_key',
        message: `An Idempotency-Key has 1 to ${MAX_KEY_LENGTH} characters`,
        category: 'user',
      });
    }
    const hold: IdempotencyHold = { tenantId: c.var.tenant.id, key, holder: randomUUID() };
    // The bytes, not text(): decoding would replace invalid UTF-8 in the body cache, hiding it from the JSON reader.
    const body = new Uint8Array(await c.req.arrayBuffer());
    const requestHash = createHash('sha256').update(`${c.req.method} ${c.req.path}\n`).update(body).digest('hex');
    const claim = await claimIdempotencyKey(db, { ...hold, requestHash, leaseMs: options.leaseMs });
    if (!claim.claimed) {
      const { record } = claim;
      if (record.requestHash !== requestHash) {
        throw errors.of({
          code: 'idempotency_key_reused',
          message: 'This Idempotency-Key was used for a different request',
          category: 'user',
        });
      }
      if (record.statusCode === null) throw idempotencyKeyInUse();
      c.header('idempotent-replayed', 'true');
      return c.json(record.responseBody as object, record.statusCode as 200);
    }
    c.set('idempotency', { ...hold, ...(claim.resource ? { created: claim.resource } : {}) });
    // Renewed while the request works (a run's wait may last RUN_WAIT_MS): one write per third of
    // a lease per request in flight; a failed renewal is retried at the next tick.
    const renewal = setInterval(
      () => {
        renewIdempotencyKey(db, hold, options.leaseMs).catch(() => false);
      },
      Math.max(250, Math.floor(options.leaseMs / 3)),
    );
    renewal.unref();
    try {
      await next();
    } catch (error) {
      clearInterval(renewal);
      await releaseIdempotencyKey(db, hold);
      throw error;
    }
    clearInterval(renewal);
    const type = c.res.headers.get('content-type') ?? '';
    // Only successes are kept: a refused or failed request may be retried with the same key.
    if (c.res.status < 200 || c.res.status >= 300 || !/json/.test(type)) {
      await releaseIdempotencyKey(db, hold);
      return;
    }
    const answer = await c.res.clone().json();
    await completeIdempotencyKey(db, hold, { statusCode: c.res.status, body: answer });
  };
}

/**
 * The route's hold on its key, for the transaction that creates what the request asks for
 * (`linkIdempotencyKey`); undefined without an `Idempotency-Key`.
 *
 * @example
 * await runs.startMessageRun({ tenant, conversationId, message, idempotency: idempotencyHold(c) });
 */
export function idempotencyHold(c: Context): IdempotencyHold | undefined {
  const scope = c.get('idempotency');
  return scope && { tenantId: scope.tenantId, key: scope.key, holder: scope.holder };
}

/**
 * The id of the `type` a request with the same key and body created before it died (this request
 * took its reservation over): the route answers with it as it is now instead of creating again.
 *
 * @example
 * const runId = createdBefore(c, 'run');
 * if (runId) return answerWithRun(runId);
 */
export function createdBefore(c: Context, type: IdempotentResource['type']): string | undefined {
  const created = c.get('idempotency')?.created;
  return created?.type === type ? created.id : undefined;
}
