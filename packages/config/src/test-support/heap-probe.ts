// Run with --expose-gc: loads and compiles the same config many times (as fresh objects, as an
// upload would) and prints the heap growth in bytes after a full GC.
import { compileAgent } from '../compile-agent.ts';
import { loadAgentConfig } from '../load-agent-config.ts';
import { baseConfig } from './base-config.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const text = JSON.stringify(baseConfig());
const uploads = Number(process.argv[2] ?? 10_000);
const once = () => {
  const { config, hash } = loadAgentConfig(JSON.parse(text));
  compileAgent(config, hash);
};
for (let i = 0; i < 100; i++) once();
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < uploads; i++) once();
gc();
process.stdout.write(String(process.memoryUsage().heapUsed - before));
