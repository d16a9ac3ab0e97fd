import { readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One measured figure. `ratio` is figure / baseline when a baseline was measured in the same run. */
export interface BenchResult {
  name: string;
  unit: string;
  median: number;
  p99: number;
  ratio?: number;
  note?: string;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);

/** Runs every `bench/*.bench.ts` (or the ones named on the command line) and writes the reports. */
async function main(): Promise<void> {
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  const sections: Array<{ file: string; results: BenchResult[] }> = [];
  for (const file of files) {
    process.stdout.write(`running ${file}…\n`);
    const mod = (await import(pathToFileURL(`${here}${file}`).href)) as { run: () => Promise<BenchResult[]> };
    const results = await mod.run();
    for (const r of results)
      process.stdout.write(
        `  ${r.name}: median ${fmt(r.median)} ${r.unit}, p99 ${fmt(r.p99)}${r.ratio ? `, ratio ${fmt(r.ratio)}` : ''}\n`,
      );
    sections.push({ file, results });
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    date: new Date().toISOString(),
  };
  writeFileSync(
    `${here}results.json`,
    `${JSON.stringify({ machine, results: sections.flatMap((s) => s.results.map((r) => ({ file: s.file, ...r }))) }, null, 2)}\n`,
  );
  writeFileSync(fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url)), markdown(machine, sections));
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toPrecision(3);
}

function markdown(
  machine: Record<string, string | number>,
  sections: Array<{ file: string; results: BenchResult[] }>,
): string {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `pnpm bench` (machine-readable copy: `bench/results.json`). Each figure is sampled many times in one',
    'process after a warm-up; median and p99 are over the samples. A ratio compares with a baseline measured in the same run.',
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}, ${machine.platform}; run ${machine.date}.`,
    '',
  ];
  for (const section of sections) {
    lines.push(
      `## ${section.file}`,
      '',
      '| figure | unit | median | p99 | ratio |',
      '| --- | --- | ---: | ---: | ---: |',
    );
    for (const r of section.results) {
      lines.push(
        `| ${r.name}${r.note ? ` (${r.note})` : ''} | ${r.unit} | ${fmt(r.median)} | ${fmt(r.p99)} | ${r.ratio ? fmt(r.ratio) : ''} |`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

await main();
