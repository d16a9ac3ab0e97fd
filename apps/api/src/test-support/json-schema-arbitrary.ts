import fc from 'fast-check';

type Schema = Record<string, any>;

/** Beyond this many nested schemas a value stops growing (AgentConfig's schemas nest and recurse). */
const MAX_SCHEMA_DEPTH = 8;

/**
 * A fast-check arbitrary of JSON values shaped by a JSON Schema (the subset the API's request
 * bodies use: `$ref` into `#/components/schemas` or `#/$defs`, `type` (also as a list), `enum`,
 * `const`, `anyOf`/`oneOf`/`allOf`, objects with `properties`/`required`/`additionalProperties`,
 * arrays with `items`, string formats and bounds, number bounds). Values are mostly valid, so a
 * fuzzer gets past the first checks; bounds are loose on purpose (a few values fall just outside).
 *
 * @example
 * const body = jsonSchemaArbitrary(document.paths['/v1/agents'].post.requestBody.content['application/json'].schema, document);
 * fc.sample(body, 3);
 */
export function jsonSchemaArbitrary(schema: Schema, root: Schema): fc.Arbitrary<unknown> {
  return build(schema, root, 0);
}

function resolve(ref: string, root: Schema): Schema {
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<any>((node, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], root);
  return target ?? {};
}

function build(schema: Schema | boolean | undefined, root: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true) return anyJson();
  if (schema === false) return fc.constant(null);
  if (depth > MAX_SCHEMA_DEPTH) return fc.constantFrom(null, 'x', 1, {}, []);
  if (typeof schema.$ref === 'string') {
    // A schema with `$defs` is a root of its own for the refs inside it (the agent config's).
    return build(
      resolve(schema.$ref, schema.$ref.startsWith('#/$defs') ? (root.$defs ? root : schema) : root),
      root,
      depth + 1,
    );
  }
  const scope = schema.$defs ? schema : root;
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => build(s, scope, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    // Good enough for bodies: the object parts merged (their properties and required lists).
    const merged: Schema = { properties: {}, required: [] };
    for (const part of schema.allOf as Schema[]) {
      const s = part.$ref ? resolve(part.$ref, scope) : part;
      const { properties, required } = merged;
      Object.assign(merged, s, {
        properties: { ...properties, ...s.properties },
        required: [...required, ...(s.required ?? [])],
      });
    }
    delete merged.allOf;
    return build(merged, scope, depth + 1);
  }
  const types: string[] = Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : schema.properties
        ? ['object']
        : [];
  if (types.length === 0) return anyJson();
  return fc.oneof(...types.map((type) => typed(type, schema, scope, depth)));
}

function typed(type: string, schema: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e9,
        max: schema.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringOf(schema);
    case 'array':
      return fc.array(build(schema.items, root, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    default:
      return objectOf(schema, root, depth);
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 200));
    } catch {
      // A pattern JavaScript cannot compile: any string will do.
    }
  }
  // Code points, as JSON Schema counts a string's length (a grapheme may be several).
  return fc.string({
    unit: 'binary',
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 40, 40),
  });
}

function objectOf(schema: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(schema.required ?? []);
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, build(s, root, depth + 1)])),
    { requiredKeys: Object.keys(properties).filter((k) => required.has(k)) },
  );
  const extra = schema.additionalProperties;
  if (!extra || Object.keys(properties).length > 0) return known;
  // A map (`additionalProperties` only): a few entries of its value schema.
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), build(extra, root, depth + 1), { maxKeys: 3 });
}

function anyJson(): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: 2 });
}
