export { estimateTokens, splitBatches } from './openai-embedding-batches.ts';
export type { OpenAIEmbeddingModel, OpenAIEmbeddingModelOptions } from './openai-embedding-model.ts';
export { createOpenAIEmbeddingModel, KNOWN_EMBEDDING_DIMENSIONS } from './openai-embedding-model.ts';
export type { OpenAIProviderName } from './openai-errors.ts';
export type { OpenAIModelOptions } from './openai-model.ts';
export { createOpenAIModel } from './openai-model.ts';
