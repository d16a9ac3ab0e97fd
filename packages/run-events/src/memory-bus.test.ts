import { describe, expect, it } from 'vitest';
import { createMemoryBus } from './memory-bus.ts';

const finish = async (bus: ReturnType<typeof createMemoryBus>, runId: string, events: number) => {
  for (let i = 0; i < events - 1; i++) await bus.publish(runId, { type: 'delta', i });
  await bus.publish(runId, { type: 'done', final: true });
};

describe('memory bus: finished runs kept', () => {
  it('drops the oldest finished runs once their events pass the bound, never a running one', async () => {
    const bus = createMemoryBus({ maxFinishedEvents: 10 });
    await bus.publish('running', { type: 'delta' });
    await finish(bus, 'first', 4);
    await finish(bus, 'second', 4);
    expect(await bus.has('first')).toBe(true);
    await finish(bus, 'third', 4);
    expect(await bus.has('first')).toBe(false);
    expect(await bus.has('second')).toBe(true);
    expect(await bus.has('third')).toBe(true);
    expect(await bus.has('running')).toBe(true);
    await bus.close();
  });

  it('keeps the newest finished run even when it alone passes the bound', async () => {
    const bus = createMemoryBus({ maxFinishedEvents: 3 });
    await finish(bus, 'small', 2);
    await finish(bus, 'large', 8);
    expect(await bus.has('small')).toBe(false);
    expect(await bus.has('large')).toBe(true);
    const replayed: string[] = [];
    for await (const record of bus.subscribe('large', { after: '6' })) replayed.push(record.event.type);
    expect(replayed).toEqual(['delta', 'done']);
    await bus.close();
  });
});
