import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createDeadlineSignal } from './deadline-signal.ts';

describe('createDeadlineSignal', () => {
  it('aborts with a TimeoutError when the deadline passes', async () => {
    const deadline = createDeadlineSignal(undefined, 5, 'too slow');
    await sleep(30);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.stopStatus()).toBe('timed_out');
    expect(deadline.signal.reason).toMatchObject({ name: 'TimeoutError', message: 'too slow' });
  });

  it("follows the caller's abort and reports it as cancelled", () => {
    const outer = new AbortController();
    const deadline = createDeadlineSignal(outer.signal, 60_000);
    outer.abort(new Error('stop'));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.stopStatus()).toBe('cancelled');
    expect(deadline.signal.reason).toEqual(new Error('stop'));
    deadline.dispose();
  });

  it('starts aborted when the caller already aborted', () => {
    const outer = new AbortController();
    outer.abort('gone');
    const deadline = createDeadlineSignal(outer.signal, 10);
    expect(deadline.stopStatus()).toBe('cancelled');
    expect(deadline.signal.reason).toBe('gone');
  });

  it('lets go of the timer and the caller once disposed', async () => {
    const outer = new AbortController();
    const deadline = createDeadlineSignal(outer.signal, 5);
    deadline.dispose();
    await sleep(30);
    outer.abort();
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.stopStatus()).toBeUndefined();
  });
});
