/**
 * `@agentry/contract/schemas`: the API's request and response shapes as zod schemas, with their
 * inferred types. The API validates bodies with them and generates its OpenAPI document from
 * `apiSchemas`; the dashboard and the widget import only the types (`import type`), so zod stays
 * out of their bundles.
 *
 * The components register in the order of the exports below, which is their order in the
 * OpenAPI document.
 */
// biome-ignore-all assist/source/organizeImports: the order of these exports is the order of the components in the OpenAPI document
export * from './errors.ts';
export * from './agents.ts';
export * from './agent-tests.ts';
export * from './conversations.ts';
export * from './handoff.ts';
export * from './runs.ts';
export * from './secrets.ts';
export * from './model-providers.ts';
export * from './knowledge.ts';
export * from './keys.ts';
export * from './tenants.ts';
export * from './usage.ts';
export * from './audit.ts';
export * from './widget.ts';
export * from './openai.ts';
export * from './operations.ts';
export * from './accounts.ts';
export * from './webhooks.ts';
export * from './tools.ts';
export * from './demo.ts';
export { apiSchemas, type Page, RoleSchema, RunStatusSchema } from './common.ts';
