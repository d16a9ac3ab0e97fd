import { describe, expect, it } from 'vitest';
import { prettyJson } from './pretty-json.ts';

describe('prettyJson', () => {
  it('pretty-prints values and JSON text, leaves other text alone', () => {
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{not json')).toBe('{not json');
    expect(prettyJson('plain')).toBe('plain');
    expect(prettyJson(undefined)).toBe('null');
  });
});
