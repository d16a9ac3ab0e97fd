import { availableServices, testServices } from '@agentry/testkit';
import { describe, expect, it } from 'vitest';
import { createMemoryRunControl, createRedisRunControl, type RunControl } from './run-control.ts';

const controls: Array<[string, () => RunControl]> = [['memory', createMemoryRunControl]];
if (availableServices().redis) {
  // One prefix for both ends: they must share the channel.
  const prefix = `test-${Date.now()}`;
  controls.push(['redis', () => createRedisRunControl({ redisUrl: testServices.redisUrl, prefix })]);
}

describe.each(controls)('run control: %s', (_name, make) => {
  it('delivers a cancel request to every listener until it unsubscribes', async () => {
    const sender = make();
    const receiver = make();
    const got: string[] = [];
    const stop = receiver.onCancel((runId) => got.push(runId));
    await new Promise((r) => setTimeout(r, 300)); // the subscription is live
    const delivered = new Promise<void>((resolve) => receiver.onCancel(() => resolve()));
    const target = _name === 'memory' ? receiver : sender;
    await target.cancel('run-1'); // over Redis, from another connection
    await delivered;
    expect(got).toEqual(['run-1']);
    stop();
    await target.cancel('run-2');
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual(['run-1']);
    await sender.close();
    await receiver.close();
  });
});
