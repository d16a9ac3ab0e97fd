import { describe, expect, it } from 'vitest';
import { BlockScanner } from './block-scanner.ts';
import { jsonProfile } from './json-profile.ts';
import { xmlProfile } from './xml-profile.ts';

function feed(scanner: BlockScanner, text: string, size = 1): string[] {
  const shown: string[] = [];
  for (let i = 0; i < text.length; i += size) shown.push(scanner.push(text.slice(i, i + size)));
  shown.push(scanner.end());
  return shown.filter(Boolean);
}

describe('BlockScanner', () => {
  it('never shows JSON call syntax, even fed one character at a time', () => {
    const scanner = new BlockScanner(jsonProfile);
    const shown = feed(
      scanner,
      'Adding. {"tool_calls": [{"function": {"name": "add", "arguments": "{\\"a\\": \\"}\\"}"}}]} Done.',
    );
    expect(shown.join('')).toBe('Adding.  Done.');
    expect(shown.some((s) => s.includes('tool_calls'))).toBe(false);
    expect(scanner.blocks).toEqual([
      '{"tool_calls": [{"function": {"name": "add", "arguments": "{\\"a\\": \\"}\\"}"}}]}',
    ]);
  });

  it('finds fenced and several blocks', () => {
    const scanner = new BlockScanner(jsonProfile);
    feed(scanner, 'A\n```json\n{"tool_calls": [{"name": "x"}]}\n```\nB {"tool_calls": [{"name": "y"}]}', 3);
    expect(scanner.visibleText()).toBe('A\n\nB ');
    expect(scanner.blocks).toHaveLength(2);
  });

  it('lets ordinary braces and code fences through', () => {
    const scanner = new BlockScanner(jsonProfile);
    const text = 'Use {name} or ```js\nconst o = {"a": 1};\n``` here';
    expect(feed(scanner, text, 2).join('')).toBe(text);
    expect(scanner.blocks).toEqual([]);
  });

  it('emits an undecided tail as text when the stream ends', () => {
    const scanner = new BlockScanner(xmlProfile);
    expect(feed(scanner, 'a <tool_c').join('')).toBe('a <tool_c');
  });

  it('keeps an unterminated block as a block (reported as broken later)', () => {
    const scanner = new BlockScanner(xmlProfile);
    feed(scanner, 'x <tool_code>{"name": "a"');
    expect(scanner.blocks).toEqual(['{"name": "a"']);
    expect(scanner.visibleText()).toBe('x ');
  });

  it('stays fast for many deltas', () => {
    const scanner = new BlockScanner(jsonProfile);
    const started = performance.now();
    for (let i = 0; i < 50_000; i++) scanner.push('word {x} ');
    scanner.end();
    expect(scanner.visibleText().length).toBe(50_000 * 9);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
