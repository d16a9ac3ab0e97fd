import type { ToolConfig } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { assertToolsLoad } from './check-tools.ts';

const tool = (i: number): ToolConfig =>
  ({
    name: `t${i}`,
    description: 'x',
    endpoint: { url: `https://api.example.com/items/${i}`, method: 'GET' },
  }) as ToolConfig;

describe('assertToolsLoad', () => {
  it('checks any number of tools in batches and answers the loader issues at their place in the import', () => {
    const tools = Array.from({ length: 130 }, (_, i) => tool(i));
    expect(() => assertToolsLoad(tools)).not.toThrow();
    tools[117] = { ...tool(117), endpoint: { url: 'https://{{host}}.example.com/x', method: 'GET' } } as ToolConfig;
    let thrown: unknown;
    try {
      assertToolsLoad(tools);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'validation_failed', status: 422 });
    const issues = (thrown as { issues: Array<{ path: string }> }).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.path.startsWith('/tools/117/'))).toBe(true);
  });
});
