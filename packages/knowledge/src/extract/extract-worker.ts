import { parentPort } from 'node:worker_threads';
import { isAppError } from '@agentry/errors';
import type { ExtractInput } from '../types.ts';
import { type ExtractBounds, extractInProcess } from './extract-in-process.ts';

/** A worker thread of the extraction pool: one job at a time, each answered under its id. */
parentPort?.on('message', async ({ id, input, bounds }: { id: number; input: ExtractInput; bounds: ExtractBounds }) => {
  try {
    const document = await extractInProcess(input, bounds);
    parentPort?.postMessage({ id, ok: true, document });
  } catch (error) {
    parentPort?.postMessage(
      isAppError(error)
        ? { id, ok: false, error: error.toJSON() }
        : { id, ok: false, message: error instanceof Error ? error.message : String(error) },
    );
  }
});
