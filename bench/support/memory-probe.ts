/**
 * A diagnostic preload for a platform process (`node --import bench/support/memory-probe.ts …`):
 * every MEMORY_PROBE_EVERY_MS (1000) it appends one JSON line to MEMORY_PROBE_FILE with
 * `process.memoryUsage()` (rss, heapTotal, heapUsed, external, arrayBuffers) and the size of every
 * WebAssembly memory the process made (PGlite's linear memory: it grows and never shrinks), so a
 * soak can tell which of them holds the resident memory; with them, how many top-level queries,
 * transactions and wire-protocol exchanges PGlite has run so far (`pglite`), so per-run database work
 * can be counted. Bench-only: nothing in the platform uses it.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const setting = (name: string): string | undefined => process.env[name];
const file = setting('MEMORY_PROBE_FILE');
const every = Number(setting('MEMORY_PROBE_EVERY_MS') ?? 1000);

if (file) {
  // Weak: a memory its instance dropped (PGlite's initdb instance on a fresh directory) may go.
  const memories: Array<WeakRef<WebAssembly.Memory>> = [];
  const Original = WebAssembly.Memory;
  // A subclass in place of the global: PGlite's Emscripten glue calls `new WebAssembly.Memory(...)`.
  WebAssembly.Memory = class extends Original {
    constructor(descriptor: WebAssembly.MemoryDescriptor) {
      super(descriptor);
      memories.push(new WeakRef(this));
    }
  } as typeof WebAssembly.Memory;
  const pglite = await countPglite();
  setInterval(() => {
    const usage = process.memoryUsage();
    const wasm = memories.map((m) => m.deref()?.buffer.byteLength ?? -1);
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...usage, wasm, pglite })}\n`);
  }, every).unref();
}

/** Counts calls of PGlite's prototype methods (before any instance binds them). */
async function countPglite(): Promise<Record<string, number>> {
  const path = fileURLToPath(
    new URL('../../packages/db/node_modules/@electric-sql/pglite/dist/index.js', import.meta.url),
  );
  const { PGlite } = (await import(path)) as { PGlite: { prototype: Record<string, unknown> } };
  const counts: Record<string, number> = {};
  countStatements(PGlite.prototype);
  for (const name of ['query', 'exec', 'transaction', 'execProtocol']) {
    const original = PGlite.prototype[name] as (...args: unknown[]) => unknown;
    counts[name] = 0;
    PGlite.prototype[name] = function (this: unknown, ...args: unknown[]) {
      counts[name]!++;
      return original.apply(this, args);
    };
  }
  return counts;
}

/** What each SQL text cost so far: executions, rows returned and bytes of those rows. */
const statements = new Map<string, { calls: number; rows: number; bytes: number }>();
let lastText = '';

/**
 * Wraps `execProtocolStream`, which every statement of PGlite goes through (transactions too): a
 * Parse message names the SQL text, and the result messages after its Execute are counted against
 * it. With MEMORY_PROBE_FILE set, the table is written to `<file>.sql.json` every second.
 */
function countStatements(proto: Record<string, unknown>): void {
  const original = proto.execProtocolStream as (message: Uint8Array, ...rest: unknown[]) => Promise<unknown>;
  proto.execProtocolStream = async function (this: unknown, message: Uint8Array, ...rest: unknown[]) {
    if (message[0] === 0x50) {
      // 'P', int32 length, statement name (C string), then the query text (C string).
      const nameEnd = message.indexOf(0, 5);
      lastText = Buffer.from(message.subarray(nameEnd + 1, message.indexOf(0, nameEnd + 1))).toString('utf8');
    } else if (message[0] === 0x51) {
      lastText = Buffer.from(message.subarray(5, message.length - 1)).toString('utf8');
    }
    const results = (await original.call(this, message, ...rest)) as Array<{ name: string; length?: number }>;
    const row = statements.get(lastText) ?? { calls: 0, rows: 0, bytes: 0 };
    if (message[0] === 0x50 || message[0] === 0x51) row.calls++;
    for (const r of results ?? []) {
      if (r.name !== 'dataRow') continue;
      row.rows++;
      row.bytes += r.length ?? 0;
    }
    statements.set(lastText, row);
    return results;
  };
  if (file)
    setInterval(() => {
      const top = [...statements].sort((a, b) => b[1].bytes - a[1].bytes || b[1].calls - a[1].calls);
      writeFileSync(`${file}.sql.json`, JSON.stringify(top.map(([text, r]) => ({ ...r, text: text.slice(0, 300) }))));
    }, 1000).unref();
}
