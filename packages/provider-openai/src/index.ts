export type { OpenAIProviderName } from './openai-errors.ts';
export type { OpenAIModelOptions } from './openai-model.ts';
export { createOpenAIModel } from './openai-model.ts';
