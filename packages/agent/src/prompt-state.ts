import type { Message, Usage } from '@agentry/llm';
import { estimateMessagesTokens, estimateTextTokens, promptTokensOf } from './token-estimate.ts';

/**
 * The history the model is shown, which compaction may replace, and what is known about its size.
 * The stored transcript is kept elsewhere and never shortened.
 *
 * @example
 * const prompt = new PromptState(history);
 * prompt.markRequest(); prompt.recordUsage(response.usage); prompt.append([assistant]);
 * prompt.estimateTokens(system);
 */
export class PromptState {
  #messages: Message[];
  #lastPromptTokens: number | undefined;
  #lengthAtLastRequest = 0;

  constructor(history: Message[]) {
    this.#messages = [...history];
  }

  get messages(): Message[] {
    return this.#messages;
  }

  append(messages: Message[]): void {
    this.#messages.push(...messages);
  }

  /** Called when a request is sent with the current messages. */
  markRequest(): void {
    this.#lengthAtLastRequest = this.#messages.length;
  }

  /** The provider's count for the last request, the best base for the next estimate. */
  recordUsage(usage: Usage): void {
    const tokens = promptTokensOf(usage);
    this.#lastPromptTokens = tokens > 0 ? tokens : undefined;
  }

  replace(messages: Message[]): void {
    this.#messages = messages;
    this.#lastPromptTokens = undefined;
  }

  /** Prompt size of the next request: last known count plus a char/4 estimate of what came after. */
  estimateTokens(system: string): number {
    if (this.#lastPromptTokens !== undefined) {
      return this.#lastPromptTokens + estimateMessagesTokens(this.#messages.slice(this.#lengthAtLastRequest));
    }
    return estimateTextTokens(system) + estimateMessagesTokens(this.#messages);
  }
}
