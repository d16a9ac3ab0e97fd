import type { Redis } from 'ioredis';

type Args = Array<string | number>;

/** Sends commands on one connection in order: at once when none is waiting for its reply, else together. */
export interface OrderedSender {
  send(command: string, args: Args): Promise<unknown>;
}

/**
 * Commands on `redis` in the order they are given, with at most one batch awaiting its replies: a
 * command given while none is in flight is written at once (no wait for the event loop's next turn,
 * as ioredis' auto-pipelining has), and the ones given meanwhile leave together, in one write, when
 * that batch is answered. At low load every event goes out as soon as it is published; under load
 * they share writes.
 *
 * @example
 * const sender = createOrderedSender(redis);
 * const id = await sender.send('xadd', [key, '*', 'e', json]);
 */
export function createOrderedSender(redis: Redis): OrderedSender {
  let queued: Array<{ command: string; args: Args; resolve(value: unknown): void; reject(error: unknown): void }> = [];
  let inFlight = false;

  const flush = (): void => {
    const batch = queued;
    queued = [];
    inFlight = batch.length > 0;
    if (!inFlight) return;
    const pipeline = redis.pipeline();
    for (const { command, args } of batch) pipeline.call(command, args);
    pipeline.exec().then(
      (results) => {
        batch.forEach((entry, index) => {
          const [error, value] = results?.[index] ?? [new Error('no reply'), undefined];
          if (error) entry.reject(error);
          else entry.resolve(value);
        });
        flush();
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
        flush();
      },
    );
  };

  return {
    send(command, args) {
      return new Promise((resolve, reject) => {
        queued.push({ command, args, resolve, reject });
        if (!inFlight) flush();
      });
    },
  };
}
