export { availableServices, canConnect, testServices } from './services.ts';
