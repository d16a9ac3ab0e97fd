export { createDemoModel, DEMO_MODEL_ID, DEMO_NOTICE, DEMO_PROVIDER } from './demo-model.ts';
export { lexicalFeatures, queryFeatures } from './lexical-features.ts';
export {
  createLocalEmbeddingModel,
  hashEmbedding,
  LOCAL_EMBEDDING_MODEL_ID,
  LOCAL_EMBEDDING_PROVIDER,
} from './local-embeddings.ts';
