import type { RunJobData } from '../types.ts';
import {
  DEFAULT_LEASE_MS,
  dispatchJobId,
  type RunScheduler,
  type SchedulerOptions,
  type SubmitOutcome,
} from './run-scheduler.ts';

interface TenantState {
  /** Run id → lease expiry (ms). */
  leases: Map<string, number>;
  /** Parked runs in arrival order (a Map keeps insertion order). */
  parked: Map<string, RunJobData>;
  /** Runs submitted while holding a slot: looked at again when their job lets go. */
  rewake: Map<string, RunJobData>;
}

/**
 * The embedded mode's scheduler: the same contract as the Redis one, in this process's memory.
 * Runs parked here when the process stops are found again by the sweeper (they stay `queued` in
 * the database).
 *
 * @example
 * const scheduler = createMemoryScheduler({ perTenant: 4, dispatch: (id, data) => queue.enqueue(id, data) });
 */
export function createMemoryScheduler(options: SchedulerOptions): RunScheduler {
  const tenants = new Map<string, TenantState>();
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const state = (tenantId: string): TenantState => {
    let s = tenants.get(tenantId);
    if (!s) {
      s = { leases: new Map(), parked: new Map(), rewake: new Map() };
      tenants.set(tenantId, s);
    }
    return s;
  };
  const expire = (s: TenantState, now: number) => {
    for (const [id, until] of s.leases) if (until <= now) s.leases.delete(id);
  };
  /** Moves parked runs into free slots, oldest first; returns them for dispatch. */
  const fill = (s: TenantState, now: number): RunJobData[] => {
    const out: RunJobData[] = [];
    for (const [id, data] of s.parked) {
      if (s.leases.size >= options.perTenant) break;
      s.parked.delete(id);
      s.leases.set(id, now + leaseMs);
      out.push(data);
    }
    return out;
  };
  const park = (s: TenantState, run: RunJobData) => {
    if (!s.parked.has(run.runId)) s.parked.set(run.runId, run);
  };
  /** As the Redis scheduler's: a failed dispatch of `own` gives its slot back and throws. */
  const dispatchAll = async (runs: RunJobData[], own?: string) => {
    for (const run of runs) {
      try {
        await options.dispatch(dispatchJobId(run.runId), run);
      } catch (error) {
        if (run.runId !== own) {
          options.onError?.('dispatch failed', error, run);
          continue;
        }
        tenants.get(run.tenantId)?.leases.delete(run.runId);
        throw error;
      }
    }
  };
  const tidy = (tenantId: string, s: TenantState) => {
    if (s.leases.size === 0 && s.parked.size === 0 && s.rewake.size === 0) tenants.delete(tenantId);
  };

  return {
    async submit(run): Promise<SubmitOutcome> {
      const s = state(run.tenantId);
      const now = Date.now();
      expire(s, now);
      if (s.leases.has(run.runId)) {
        s.rewake.set(run.runId, run);
        return 'held';
      }
      park(s, run);
      const out = fill(s, now);
      await dispatchAll(out, run.runId);
      return out.some((r) => r.runId === run.runId) ? 'dispatched' : 'parked';
    },
    async acquire(run) {
      const s = state(run.tenantId);
      const now = Date.now();
      expire(s, now);
      if (s.leases.has(run.runId)) {
        s.leases.set(run.runId, now + leaseMs);
        return true;
      }
      park(s, run);
      const out = fill(s, now);
      const mine = out.findIndex((r) => r.runId === run.runId);
      if (mine >= 0) out.splice(mine, 1);
      await dispatchAll(out);
      return mine >= 0;
    },
    async refresh(run) {
      const s = tenants.get(run.tenantId);
      if (s?.leases.has(run.runId)) s.leases.set(run.runId, Date.now() + leaseMs);
    },
    async release(run) {
      const s = state(run.tenantId);
      const now = Date.now();
      s.leases.delete(run.runId);
      expire(s, now);
      const again = s.rewake.get(run.runId);
      if (again) {
        s.rewake.delete(run.runId);
        park(s, again);
      }
      await dispatchAll(fill(s, now));
      tidy(run.tenantId, s);
    },
    async forget(run) {
      const s = tenants.get(run.tenantId);
      if (!s) return;
      s.parked.delete(run.runId);
      s.rewake.delete(run.runId);
      tidy(run.tenantId, s);
    },
    async reconcile() {
      let dispatched = 0;
      const now = Date.now();
      for (const [tenantId, s] of tenants) {
        expire(s, now);
        const out = fill(s, now);
        dispatched += out.length;
        await dispatchAll(out);
        tidy(tenantId, s);
      }
      return dispatched;
    },
    async backlog() {
      let parked = 0;
      for (const s of tenants.values()) parked += s.parked.size;
      return parked;
    },
    async tracked(tenantId, runIds) {
      const s = tenants.get(tenantId);
      const now = Date.now();
      return new Set(runIds.filter((id) => s?.parked.has(id) || (s?.leases.get(id) ?? 0) > now));
    },
    async close() {},
  };
}
