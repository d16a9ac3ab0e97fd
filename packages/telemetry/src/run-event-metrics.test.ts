import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';
import { type RunEventStats, trackRunEvents } from './run-event-metrics.ts';

describe('run event metrics', () => {
  it('samples every tracked bus on scrape and forgets one that is untracked', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const a: RunEventStats = { subscriptions: 5, following: 3, streams: 2, readerConnections: 2 };
    const untrackA = trackRunEvents(metrics, { stats: () => a });
    trackRunEvents(metrics, { stats: () => ({ subscriptions: 1, following: 1, streams: 1, readerConnections: 1 }) });
    let text = await metrics.registry.metrics();
    expect(text).toContain('agentry_run_event_subscriptions{state="following"} 4');
    expect(text).toContain('agentry_run_event_subscriptions{state="catching_up"} 2');
    expect(text).toContain('agentry_run_event_streams 3');
    expect(text).toContain('agentry_run_event_reader_connections 3');
    a.subscriptions = 7; // sampled at each scrape, not at tracking time
    text = await metrics.registry.metrics();
    expect(text).toContain('agentry_run_event_subscriptions{state="catching_up"} 4');
    untrackA();
    text = await metrics.registry.metrics();
    expect(text).toContain('agentry_run_event_reader_connections 1');
  });
});
