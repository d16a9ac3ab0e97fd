import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

/**
 * Cancellation requests from the API to whichever worker runs the run. Delivery is best-effort
 * and fast (pub/sub); the run row's `cancel_requested_at` is the durable record a worker also
 * checks when it starts or resumes.
 *
 * @example
 * const stop = control.onCancel((runId) => controllers.get(runId)?.abort());
 * await control.cancel(runId);
 */
export interface RunControl {
  cancel(runId: string): Promise<void>;
  onCancel(listener: (runId: string) => void): () => void;
  close(): Promise<void>;
}

export function createMemoryRunControl(): RunControl {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async cancel(runId) {
      emitter.emit('cancel', runId);
    },
    onCancel(listener) {
      emitter.on('cancel', listener);
      return () => emitter.off('cancel', listener);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

export function createRedisRunControl(options: { redisUrl: string; prefix?: string }): RunControl {
  const channel = `${options.prefix ?? 'agentry'}:run-control`;
  const publisher = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 });
  publisher.on('error', () => {});
  let subscriber: Redis | undefined;
  const listeners = new Set<(runId: string) => void>();
  const ensureSubscriber = () => {
    if (subscriber) return;
    // No retry limit: a SUBSCRIBE given while Redis is away waits for it instead of rejecting.
    subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, message: string) => {
      const { type, runId } = JSON.parse(message) as { type: string; runId: string };
      if (type === 'cancel') for (const listener of listeners) listener(runId);
    });
    // Rejects only when closed; unhandled, that ended the process.
    subscriber.subscribe(channel).catch(() => {});
  };
  return {
    async cancel(runId) {
      await publisher.publish(channel, JSON.stringify({ type: 'cancel', runId }));
    },
    onCancel(listener) {
      ensureSubscriber();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      subscriber?.disconnect();
      await publisher.quit().catch(() => publisher.disconnect());
    },
  };
}
