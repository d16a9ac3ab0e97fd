import { isAppError } from '@agentry/errors';
import type { ExtractInput } from '../types.ts';
import { type ExtractBounds, extractInProcess } from './extract-in-process.ts';

/** A reader process of the extraction pool: one job at a time, each answered under its id. */
process.on('message', async ({ id, input, bounds }: { id: number; input: ExtractInput; bounds: ExtractBounds }) => {
  try {
    const document = await extractInProcess(input, bounds);
    process.send?.({ id, ok: true, document });
  } catch (error) {
    process.send?.(
      isAppError(error)
        ? { id, ok: false, error: error.toJSON() }
        : { id, ok: false, message: error instanceof Error ? error.message : String(error) },
    );
  }
});
// The pool's process is gone (its end closes the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
