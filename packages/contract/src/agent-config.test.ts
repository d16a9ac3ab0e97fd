import { readFileSync } from 'node:fs';
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CONFIG_SCHEMA_FILE, configSchemaJson } from '../write-config-schema.ts';
import type {
  AgentConfig,
  AgentConfigDocument,
  HttpMethod,
  ParametersSchema,
  ToolConfig,
  TypedConfigSchema,
} from './agent-config.ts';
import type { agentConfigSchema } from './agent-config-schema.ts';

describe('the agent config schema', () => {
  it('is published as configs/agent-config.schema.json exactly as written from agent-config-schema.ts', () => {
    const outOfDate =
      'configs/agent-config.schema.json differs from packages/contract/src/agent-config-schema.ts: edit the .ts, then run `pnpm config-schema`';
    expect(readFileSync(CONFIG_SCHEMA_FILE, 'utf8'), outOfDate).toBe(configSchemaJson());
  });
});

// Type-level checks (tsc checks this file with the rest of `pnpm typecheck`; at run time they do nothing).
type Defs = (typeof agentConfigSchema)['$defs'];

describe('the types inferred from the schema', () => {
  it('are real types, not any or unknown', () => {
    expectTypeOf<AgentConfigDocument>().not.toBeAny();
    expectTypeOf<ToolConfig['name']>().toEqualTypeOf<string>();
    expectTypeOf<HttpMethod>().toEqualTypeOf<Defs['endpoint']['properties']['method']['enum'][number]>();
    expectTypeOf<AgentConfigDocument['basic_settings']['name']>().toEqualTypeOf<string>();
  });

  it('AgentConfig is the document with the two lists the loader fills in, both defaulted by the schema', () => {
    // The one hand-written step: `action_books` and `tools` required. They are keys the schema gives
    // a default (required when json-schema-to-ts applies defaults); everything else is the document's.
    type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
    type Lists = 'action_books' | 'tools';
    expectTypeOf<RequiredKeys<AgentConfig>>().toEqualTypeOf<'basic_settings' | Lists>();
    expectTypeOf<Extract<RequiredKeys<FromSchema<TypedConfigSchema>>, Lists>>().toEqualTypeOf<Lists>();
    expectTypeOf<AgentConfig['tools']>().toEqualTypeOf<NonNullable<AgentConfigDocument['tools']>>();
    expectTypeOf<AgentConfig['action_books']>().toEqualTypeOf<NonNullable<AgentConfigDocument['action_books']>>();
    expectTypeOf<Omit<AgentConfig, Lists>>().toEqualTypeOf<Omit<AgentConfigDocument, Lists>>();
    expectTypeOf<AgentConfig>().toExtend<AgentConfigDocument>();
    expectTypeOf<AgentConfigDocument>().not.toExtend<AgentConfig>();
  });

  it('a property of tool parameters, cut off as a plain object, is wider than the schema node it stands for', () => {
    // `schemaNode` nests itself, so the types stop at a plain object. One level of the real node
    // (its own nested nodes cut off the same way) must fit that plain object.
    type OneLevel = FromSchema<
      Defs['schemaNode'] & {
        $defs: Omit<Defs, 'schemaNode'> & { schemaNode: { type: 'object' } };
      }
    >;
    type Property = NonNullable<ParametersSchema['properties']>[string];
    expectTypeOf<OneLevel['description']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<OneLevel>().toExtend<Property>();
    expectTypeOf<Property>().toEqualTypeOf<{ [key: string]: unknown }>();
  });
});
