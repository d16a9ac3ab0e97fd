import { loadAgentConfig } from '@agentry/config';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importTools } from './index.ts';
import { ARGUMENT_NAME, argumentName, TOOL_NAME, toolName } from './names.ts';

const anyText = fc.string({ unit: 'grapheme', maxLength: 80 });
const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
  anyText.filter((s) => s.length > 0 && !/[/?#{}]/.test(s)).map((s) => encodeURIComponent(s).slice(0, 30)),
);

describe('imported names (property-based)', () => {
  it('any operation id gives a valid tool name, unique among the others', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 40 }), (ids) => {
        const taken = new Set<string>();
        const names = ids.map((id) => toolName(id, taken));
        for (const name of names) {
          expect(name).toMatch(TOOL_NAME);
          expect(name).not.toContain('__');
        }
        expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
      }),
    );
  });

  it('any parameter name gives a valid, usable argument name', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 40 }), (raw) => {
        const taken = new Set<string>();
        const names = raw.map((r) => argumentName(r, taken));
        for (const name of names) expect(name).toMatch(ARGUMENT_NAME);
        expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
      }),
    );
  });

  it('random operation ids, paths and parameter names always import as loadable configs', {
    timeout: 90_000,
  }, async () => {
    const operation = fc.record({
      operationId: fc.option(anyText, { nil: undefined }),
      method: fc.constantFrom('get', 'post', 'put', 'patch', 'delete', 'head'),
      segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
      pathParam: fc.option(
        anyText.filter((s) => s.length > 0 && !/[/?#{}]/.test(s)),
        { nil: undefined },
      ),
      query: fc.array(
        anyText.filter((s) => s.length > 0),
        { maxLength: 4 },
      ),
      bodyKeys: fc.array(
        anyText.filter((s) => s.length > 0),
        { maxLength: 4 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), async (ops) => {
        const paths: Record<string, Record<string, unknown>> = {};
        const seenIds = new Set<string>();
        ops.forEach((op, i) => {
          const param = op.pathParam === undefined ? [] : [`{${op.pathParam}}`];
          const path = `/${[...op.segments, ...param].join('/')}/${i}`;
          const id = op.operationId !== undefined && !seenIds.has(op.operationId) ? op.operationId : undefined;
          if (id !== undefined) seenIds.add(id);
          const parameters = [
            ...(op.pathParam === undefined
              ? []
              : [{ name: op.pathParam, in: 'path', required: true, schema: { type: 'string' } }]),
            ...[...new Set(op.query)].map((name) => ({ name, in: 'query', schema: { type: 'integer' } })),
          ];
          const withBody = op.method !== 'get' && op.method !== 'head' && op.bodyKeys.length > 0;
          paths[path] = {
            [op.method]: {
              ...(id === undefined ? {} : { operationId: id }),
              parameters,
              ...(withBody
                ? {
                    requestBody: {
                      content: {
                        'application/json': {
                          schema: {
                            type: 'object',
                            properties: Object.fromEntries(op.bodyKeys.map((k) => [k, { type: 'string' }])),
                          },
                        },
                      },
                    },
                  }
                : {}),
              responses: { 200: { description: 'ok' } },
            },
          };
        });
        const doc = {
          openapi: '3.1.0',
          info: { title: 'Random', version: '1' },
          servers: [{ url: 'https://r.example' }],
          paths,
        };
        const result = await importTools({ kind: 'openapi', document: doc });
        expect(result.tools).toHaveLength(ops.length);
        const names = result.tools.map((t) => t.name);
        expect(new Set(names).size).toBe(names.length);
        // importTools already ran the loader; once more, all in one config.
        expect(loadAgentConfig({ basic_settings: { name: 'p' }, tools: result.tools }).config.tools).toHaveLength(
          ops.length,
        );
      }),
      { numRuns: 25 },
    );
  });
});
