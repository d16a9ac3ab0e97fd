import { agentConfigSchema } from '@agentry/config';
import { apiSchemas } from '@agentry/contract/schemas';
import { z } from 'zod';

/**
 * The OpenAPI components: the response shapes of `@agentry/contract/schemas` (registered in
 * `apiSchemas` under their component name) and the agent config's JSON Schema. `openapi.test.ts`
 * and `cross-tenant.test.ts` check real answers against them, so a view that drifts from its
 * schema fails a test instead of misleading the docs (and the dashboard and widget, which take
 * their types from the same schemas).
 */

/** The component name of a registered schema, for `$ref`s. */
export function ref(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

/** `configs/agent-config.schema.json` as components: its `$defs` become `AgentConfig_<name>`. */
function agentConfigComponents(): Record<string, unknown> {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) =>
        key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
          ? [key, `#/components/schemas/AgentConfig_${inner.slice('#/$defs/'.length)}`]
          : [key, rewrite(inner)],
      ),
    );
  };
  const { $defs, $schema: _s, $id: _i, ...root } = agentConfigSchema as Record<string, unknown>;
  const defs = Object.entries(($defs ?? {}) as Record<string, unknown>).map(([name, schema]) => [
    `AgentConfig_${name}`,
    rewrite(schema),
  ]);
  return { AgentConfig: rewrite(root), ...Object.fromEntries(defs) };
}

/**
 * Every registered response schema and the agent config schema, as OpenAPI 3.1 components
 * (JSON Schema 2020-12).
 */
export function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(apiSchemas, {
    target: 'draft-2020-12',
    uri: (name) => `#/components/schemas/${name}`,
  });
  const cleaned = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _s, $id: _i, id: _id, ...rest } = schema as Record<string, unknown>;
      return [name, rest];
    }),
  );
  return { ...cleaned, ...agentConfigComponents() };
}

/**
 * A request schema (one of the zod schemas a route validates with) as JSON Schema, as the client
 * sends it (`io: 'input'`: fields with defaults are optional). `replace` swaps property schemas,
 * e.g. `{ config: ref('AgentConfig') }` where the zod schema accepts anything and a later step checks.
 */
export function requestSchema(schema: z.ZodType, replace: Record<string, unknown> = {}): Record<string, unknown> {
  const { $schema: _s, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  const properties = json.properties as Record<string, unknown> | undefined;
  if (properties) for (const [name, value] of Object.entries(replace)) properties[name] = value;
  // A union of object bodies (a document as text or as a URL) is an object either way: say so.
  const variants = json.anyOf as Array<Record<string, unknown>> | undefined;
  if (json.type === undefined && variants?.every((variant) => variant.type === 'object')) json.type = 'object';
  return json;
}
