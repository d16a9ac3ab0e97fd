export { createDemoModel, DEMO_MODEL_ID, DEMO_NOTICE, DEMO_PROVIDER } from './demo-model.ts';
