/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): the top functions by self time, the
 * top by inclusive time (a function counted once per sample however deep it recurses), and self
 * time per package / source folder.
 *
 *   node bench/support/profile-top.ts /tmp/prof/CPU.….cpuprofile [rows] [from-s] [to-s]
 *
 * `from-s` / `to-s` keep only the samples taken that many seconds after the profile started (e.g. a
 * bench's window, leaving out start-up and module loading).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg, fromArg, toArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [rows] [from-s] [to-s]');
const rows = Number(rowsArg ?? 25);
const fromUs = Number(fromArg ?? 0) * 1e6;
const toUs = toArg === undefined ? Number.POSITIVE_INFINITY : Number(toArg) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode) => {
  const url = n.callFrame.url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '~');
  return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url.split('/').slice(-3).join('/')}:${n.callFrame.lineNumber + 1}` : ''}`;
};
const area = (n: ProfileNode) => {
  const url = n.callFrame.url;
  if (!url) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const local = /\/work\/main\/((?:apps|packages)\/[^/]+)/.exec(url)?.[1];
  return local ?? url;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const areas = new Map<string, number>();
let total = 0;
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  elapsedUs += profile.timeDeltas[i] ?? 0;
  if (elapsedUs < fromUs || elapsedUs > toUs) return;
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  total += ms;
  const node = byId.get(id)!;
  self.set(label(node), (self.get(label(node)) ?? 0) + ms);
  areas.set(area(node), (areas.get(area(node)) ?? 0) + ms);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + ms);
  }
});

const busy = total - (self.get('(idle) ') ?? 0);
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (of ${busy.toFixed(0)} ms busy, ${total.toFixed(0)} ms sampled)`);
  for (const [k, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${k}`);
};
show('self time by function', self);
show('self time by package', areas);
show('inclusive time by function', inclusive);
