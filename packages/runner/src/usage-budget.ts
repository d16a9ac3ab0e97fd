import { type LanguageModel, observeStream, type Usage } from '@agentry/llm';

/**
 * The same model, reporting the usage of every answer (generated or streamed) as it arrives, so a
 * budget can be read mid-step.
 *
 * @example
 * const counted = countingModel(model, (usage) => (spent += budgetTokens(usage)));
 */
export function countingModel(model: LanguageModel, onUsage: (usage: Usage) => void): LanguageModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    async generate(request, callOptions) {
      const response = await model.generate(request, callOptions);
      onUsage(response.usage);
      return response;
    },
    stream: (request, callOptions) =>
      observeStream(model.stream(request, callOptions), {
        item: (event) => {
          if (event.type === 'finish') onUsage(event.response.usage);
        },
      }),
    // A pass-through stops when the model does.
    ...(model.honoursAbort ? { honoursAbort: true } : {}),
  };
}

/**
 * Tokens counted against a budget, as the agent loop counts them.
 *
 * @example
 * budgetTokens(result.usage); // input + cache reads and writes + output
 */
export function budgetTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

/**
 * `a - b`, field by field.
 *
 * @example
 * subtractUsage(total, checkpointed);
 */
export function subtractUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    cacheReadTokens: a.cacheReadTokens - b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens - b.cacheWriteTokens,
  };
}
