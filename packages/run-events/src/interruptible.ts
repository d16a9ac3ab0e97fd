/** What an interrupted wait resolves to. */
export const STOPPED: unique symbol = Symbol('stopped');

/**
 * Waits that end early when a subscription stops (abort or bus close). One pending wait at a time
 * holds the only reference to its resolver, so nothing accumulates over a long subscription (a
 * `Promise.race` against a shared "stopped" promise would add a reaction per wait).
 *
 * @example
 * const stop = createInterruptible();
 * signal.addEventListener('abort', () => stop.stop());
 * const page = await stop.wait(redis.xrange(key, '-', '+'));
 * if (page === STOPPED) return;
 */
export interface Interruptible {
  readonly stopped: boolean;
  stop(): void;
  /** The promise's outcome, or STOPPED as soon as `stop()` is called. */
  wait<T>(promise: Promise<T>): Promise<T | typeof STOPPED>;
  /** Resolves after `ms`, or at once on stop (the timer is cleared either way). */
  sleep(ms: number): Promise<undefined | typeof STOPPED>;
}

export function createInterruptible(): Interruptible {
  let stopped = false;
  let interrupt: (() => void) | undefined;
  const wait = <T>(promise: Promise<T>): Promise<T | typeof STOPPED> => {
    if (stopped) {
      promise.catch(() => {});
      return Promise.resolve(STOPPED);
    }
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      const onStop = () => resolve(STOPPED);
      const settle = () => {
        if (interrupt === onStop) interrupt = undefined;
      };
      interrupt = onStop;
      promise.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  };
  return {
    get stopped() {
      return stopped;
    },
    stop() {
      stopped = true;
      const pending = interrupt;
      interrupt = undefined;
      pending?.();
    },
    wait,
    sleep(ms: number) {
      let timer: NodeJS.Timeout | undefined;
      return wait(
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), ms);
        }),
      ).finally(() => clearTimeout(timer));
    },
  };
}
