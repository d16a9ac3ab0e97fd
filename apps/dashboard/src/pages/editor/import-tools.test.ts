import type { ToolConfig } from '@agentry/contract';
import { ProblemError } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import {
  describeImportFailure,
  importBody,
  mergeImportedTools,
  missingSecrets,
  secretsToStore,
  selectionChanged,
  sourceReady,
} from './import-tools.ts';

const tool = (name: string, extra: Record<string, unknown> = {}) =>
  ({
    name,
    description: `does ${name}`,
    endpoint: { url: 'https://api.example.com', method: 'GET' },
    ...extra,
  }) as ToolConfig;

describe('merging imported tools into the draft', () => {
  it('appends them after the draft’s tools, unchanged when no name clashes', () => {
    const result = mergeImportedTools([tool('a')], [tool('b'), tool('c')]);
    expect(result.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(result.added).toEqual(['b', 'c']);
    expect(result.renamed).toEqual([]);
    expect(result.tools[1]).toEqual(tool('b'));
  });

  it('gives a clashing name the first free suffix _2, _3… and reports each rename', () => {
    const result = mergeImportedTools([tool('getPet'), tool('getPet_2')], [tool('getPet'), tool('getPet'), tool('x')]);
    expect(result.tools.map((t) => t.name)).toEqual(['getPet', 'getPet_2', 'getPet_3', 'getPet_4', 'x']);
    expect(result.renamed).toEqual([
      { from: 'getPet', to: 'getPet_3' },
      { from: 'getPet', to: 'getPet_4' },
    ]);
    expect(result.added).toEqual(['getPet_3', 'getPet_4', 'x']);
  });

  it('keeps a renamed long name within the 64 characters a tool name may have', () => {
    const long = `a${'b'.repeat(63)}`;
    const result = mergeImportedTools([tool(long)], [tool(long)]);
    const renamed = result.tools[1]?.name ?? '';
    expect(renamed).toHaveLength(64);
    expect(renamed.endsWith('_2')).toBe(true);
    expect(renamed).toMatch(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/);
  });

  it('copies the imported tools and leaves the draft’s list untouched', () => {
    const existing = [tool('a')];
    const imported = [tool('a', { parameters: { type: 'object', properties: {} } })];
    const result = mergeImportedTools(existing, imported);
    expect(existing).toHaveLength(1);
    expect(imported[0]?.name).toBe('a');
    expect(result.tools[1]?.parameters).toEqual({ type: 'object', properties: {} });
    expect(result.tools[1]?.parameters).not.toBe(imported[0]?.parameters);
  });
});

describe('the request and the selection', () => {
  it('builds the body for each source, with the picked operations', () => {
    expect(importBody({ kind: 'curl', command: '  curl https://x.example  ' })).toEqual({
      source: { kind: 'curl', command: 'curl https://x.example' },
    });
    expect(importBody({ kind: 'openapi', from: 'url', url: ' https://x.example/o.json ' }, ['a'])).toEqual({
      source: { kind: 'openapi', url: 'https://x.example/o.json' },
      operations: ['a'],
    });
    expect(importBody({ kind: 'openapi', from: 'text', text: '{}' }, [])).toEqual({
      source: { kind: 'openapi', document: '{}' },
    });
    expect(sourceReady({ kind: 'openapi', from: 'text', text: '  ' })).toBe(false);
    expect(sourceReady({ kind: 'curl', command: 'curl x' })).toBe(true);
  });

  it('asks again only when the picked operations differ from the answer’s', () => {
    const ops = [
      { id: 'a', selected: true },
      { id: 'b', selected: true },
      { id: 'c', selected: false },
    ];
    expect(selectionChanged(ops, new Set(['a', 'b']))).toBe(false);
    expect(selectionChanged(ops, new Set(['a']))).toBe(true);
    expect(selectionChanged(ops, new Set(['a', 'b', 'c']))).toBe(true);
  });
});

describe('secrets', () => {
  const needed = [{ name: 'API_KEY' }, { name: 'TOKEN' }, { name: 'OLD' }];
  it('stores only the values typed, and names those still missing', () => {
    const values = { API_KEY: 'k-1', TOKEN: '' };
    expect(secretsToStore(needed, values)).toEqual([{ name: 'API_KEY', value: 'k-1' }]);
    expect(missingSecrets(needed, values, new Set(['OLD']))).toEqual(['TOKEN']);
  });
});

describe('failures in plain words', () => {
  it('says what a private address means, without the raw API sentence', () => {
    const error = ProblemError.fromResponse(400, {
      code: 'egress_forbidden_address',
      title: 'Forbidden address',
      status: 400,
      detail: 'The address 127.0.0.1 is not allowed',
    });
    expect(describeImportFailure(error)).toEqual({
      key: 'importTools.error.privateAddress',
      details: [],
      code: 'egress_forbidden_address',
    });
  });

  it('lists a 422’s problems under the message, each by its first line', () => {
    const error = ProblemError.fromResponse(422, {
      code: 'import_document_invalid',
      status: 422,
      title: 'Invalid',
      detail: 'The document is not valid',
      errors: [
        { path: '/paths/~1pets', code: 'x', message: 'must have responses\n> 1 | {\n  | ^ here' },
        { path: '', code: 'y', message: 'no openapi field' },
      ],
    });
    expect(describeImportFailure(error)).toEqual({
      key: 'importTools.error.documentInvalid',
      details: ['/paths/~1pets: must have responses', 'no openapi field'],
      code: 'import_document_invalid',
    });
  });

  it('maps a 413 without a known code, and keeps unknown codes readable', () => {
    expect(describeImportFailure(ProblemError.fromResponse(413, '<html>too big</html>')).key).toBe(
      'importTools.error.tooLarge',
    );
    const other = describeImportFailure(
      ProblemError.fromResponse(500, { code: 'internal_error', status: 500, title: 'Oops', detail: '' }),
    );
    expect(other).toMatchObject({ key: 'importTools.error.other', vars: { message: 'Oops' }, code: 'internal_error' });
    expect(describeImportFailure(new Error('')).vars).toEqual({ message: '?' });
    expect(describeImportFailure(ProblemError.network('offline')).key).toBe('importTools.error.network');
  });
});
