export { createDemoModel, DEMO_MODEL_ID, DEMO_NOTICE, DEMO_PROVIDER } from './demo-model.ts';
export {
  createLocalEmbeddingModel,
  hashEmbedding,
  LOCAL_EMBEDDING_MODEL_ID,
  LOCAL_EMBEDDING_PROVIDER,
  lexicalFeatures,
} from './local-embeddings.ts';
