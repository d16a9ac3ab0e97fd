export type { AnthropicModelOptions } from './anthropic-model.ts';
export { createAnthropicModel } from './anthropic-model.ts';
