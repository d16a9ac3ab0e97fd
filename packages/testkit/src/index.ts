export { chromiumLaunchOptions } from './chromium.ts';
export * from './fake-llm/index.ts';
export * from './mail-catcher.ts';
export * from './mcp-server.ts';
export { testMcpStdioCommand } from './mcp-stdio-server.ts';
export {
  canStartPrivatePostgres,
  type PrivatePostgres,
  postgresBinDir,
  postgresPid,
  startPrivatePostgres,
} from './private-postgres.ts';
export { freePort, redisServerInstalled, startPrivateRedis, stopPrivateRedis } from './private-redis.ts';
export * from './recording-server.ts';
export { availableServices, canConnect, deleteRedisKeys, testServices } from './services.ts';
export {
  createTemplate,
  createTestDatabase,
  dropDatabase,
  type TestDatabase,
  type TestDatabaseKind,
  testDatabaseKinds,
} from './test-database.ts';
export { waitUntil } from './wait-until.ts';
