export { availableServices, canConnect, testServices } from './services.ts';
export * from './fake-llm/index.ts';
export * from './recording-server.ts';
