/**
 * Resource readings from Linux /proc for the end-to-end benches: resident memory and CPU time of
 * processes, the Postgres backends serving one database, and a linear-regression slope.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc/<pid>/stat times (USER_HZ: 100 on Linux/x86 and arm64). */
const CLK_TCK = 100;

/** VmRSS of a process in bytes (0 when it has gone). */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Stat {
  comm: string;
  ppid: number;
  /** utime + stime of the whole process (every thread), in ms. */
  cpuMs: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    // After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    return {
      comm: text.slice(text.indexOf('(') + 1, close),
      ppid: Number(fields[1]),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK,
    };
  } catch {
    return undefined;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** utime + stime of `pid` in ms (0 when it has gone). */
export function cpuMs(pid: number): number {
  return stat(pid)?.cpuMs ?? 0;
}

/** The pids whose command name is `comm` (like `pidof`). */
export function pidsByComm(comm: string): number[] {
  return allPids().filter((pid) => stat(pid)?.comm === comm);
}

/**
 * The Postgres processes that work for `database`: the postmaster's children that are either
 * its backends for that database or shared auxiliary processes (WAL writer, checkpointer,
 * background writer, autovacuum); backends of other databases (other users of the server) are left out.
 */
export function postgresPids(database: string): number[] {
  const pids = allPids();
  const stats = new Map(pids.map((pid) => [pid, stat(pid)] as const));
  const postmasters = pids.filter((pid) => stats.get(pid)?.comm === 'postgres' && stats.get(pid)?.ppid === 1);
  return pids.filter((pid) => {
    if (!postmasters.includes(stats.get(pid)?.ppid ?? -1)) return false;
    const cmd = cmdline(pid);
    const isBackend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(cmd);
    return !isBackend || cmd.includes(` ${database} `);
  });
}

/** Busy and total CPU time of the whole machine (all cores) in ms, from /proc/stat. */
export function machineCpuMs(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy: (busy * 1000) / CLK_TCK, total: ((busy + idle! + iowait!) * 1000) / CLK_TCK };
}

/** Write system calls made so far by `pid` (every thread; `syscw` in /proc/<pid>/io), undefined when it has gone. */
function writeCalls(pid: number): number | undefined {
  try {
    const match = /^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time used by a changing set of processes between `start()` and `stop()`: a process that
 * appears in between counts from zero; one that exits in between loses what it used after the
 * last `poll()` (poll during long phases).
 */
export function cpuMeter(pids: () => number[]) {
  return counterMeter(pids, (pid) => stat(pid)?.cpuMs);
}

/**
 * Write system calls (socket, pipe and file writes alike) made by a changing set of processes
 * between `start()` and `stop()`, counted like `cpuMeter`. On loopback TCP each write also runs the
 * receiver's network stack, so it is what most of a process's CPU per run goes to.
 */
export function writeCallMeter(pids: () => number[]) {
  return counterMeter(pids, writeCalls);
}

/** How much a per-process counter grew between `start()` and `stop()`, summed over `pids()`. */
function counterMeter(pids: () => number[], read: (pid: number) => number | undefined) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const poll = () => {
    for (const pid of pids()) {
      const value = read(pid);
      if (value !== undefined) last.set(pid, value);
    }
  };
  return {
    start() {
      for (const pid of pids()) {
        const value = read(pid);
        if (value !== undefined) first.set(pid, value);
      }
    },
    poll,
    /** How much the counter grew since start(). */
    stop(): number {
      poll();
      let sum = 0;
      for (const [pid, end] of last) sum += end - (first.get(pid) ?? 0);
      return sum;
    },
  };
}

/** Least-squares slope of y over x. */
export function slope(points: Array<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return num / den;
}
