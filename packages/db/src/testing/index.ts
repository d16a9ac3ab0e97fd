export { queryRows } from './query-rows.ts';
export { tenantWithAgent } from './run-fixtures.ts';
