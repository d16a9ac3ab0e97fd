import { parentPort } from 'node:worker_threads';
import { isAppError } from '@agentry/errors';
import { type BuildJob, buildTools } from './build-tools.ts';

/** A worker thread of {@link runIsolated}'s pool: one job at a time, each answered under its id. */
parentPort?.on('message', async ({ id, job }: { id: number; job: BuildJob }) => {
  try {
    const result = await buildTools(job);
    parentPort?.postMessage({ id, ok: true, result });
  } catch (error) {
    parentPort?.postMessage(
      isAppError(error)
        ? { id, ok: false, error: error.toJSON() }
        : { id, ok: false, message: error instanceof Error ? error.message : String(error) },
    );
  }
});
