export { type Database, type DatabaseOptions, type Db, migrationsFolder, openDatabase } from './database.ts';
export { isId, newId } from './ids.ts';
export * from './repositories/agents.ts';
export * from './repositories/conversations.ts';
export * from './repositories/run-attempts.ts';
export * from './repositories/tenants.ts';
export * from './schema.ts';
export * from './repositories/secrets.ts';
