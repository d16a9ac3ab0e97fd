import { errors } from '@agentry/errors';
import { DEMO_MODEL_ID } from '@agentry/provider-demo';
import {
  type ConfigurableProvider,
  type ModelPrice,
  type ModelProviderSettings,
  type ResolvedModel,
  resolveModel,
} from './model-settings.ts';

const PROVIDERS: readonly ConfigurableProvider[] = ['openai', 'anthropic', 'openai_compatible'];

/**
 * A model named by a `"<provider>/<model>"` spec (or `demo`, the built-in deterministic model),
 * resolved against the platform's and the tenant's credentials like an agent's own model. Used
 * where a caller names a model outside a config: test runs and their judge (issue 22). A spec of
 * an unknown provider is a 422 at `field`; a provider without credentials is `model_not_configured`.
 *
 * @example
 * resolveModelSpec('openai/gpt-5.4-mini', settings, '/model'); // { provider: 'openai', name: 'gpt-5.4-mini', … }
 * resolveModelSpec('demo', settings, '/model'); // the demo model, always available
 */
export function resolveModelSpec(spec: string, settings: ModelProviderSettings, field: string): ResolvedModel {
  if (spec === 'demo' || spec === `demo/${DEMO_MODEL_ID}`) {
    return { provider: 'demo', name: DEMO_MODEL_ID, apiKey: 'not-needed' };
  }
  const slash = spec.indexOf('/');
  const provider = spec.slice(0, slash) as ConfigurableProvider;
  const name = spec.slice(slash + 1).trim();
  if (slash <= 0 || !PROVIDERS.includes(provider) || !name) {
    throw errors.validation(`"${spec}" is not a model: use demo or <provider>/<model>`, [
      {
        path: field,
        code: 'invalid_model',
        message: `demo, or one of ${PROVIDERS.join(', ')} followed by / and the model's name`,
      },
    ]);
  }
  return resolveModel({ provider, name }, { ...settings, demo: false });
}

/**
 * The cost in USD of `usage` on a model by its list price (`settings.prices`), or null when the
 * price is unknown. The demo model is free.
 *
 * @example
 * modelCost({ prices: { 'openai/gpt-5.4-mini': { input: 0.25, output: 2 } } }, 'openai', 'gpt-5.4-mini', { inputTokens: 1000, outputTokens: 100 }); // 0.00045
 */
export function modelCost(
  settings: Pick<ModelProviderSettings, 'prices'>,
  provider: string,
  name: string,
  usage: { inputTokens: number; outputTokens: number },
): number | null {
  if (provider === 'demo') return 0;
  const price: ModelPrice | undefined = settings.prices?.[`${provider}/${name}`];
  if (!price) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
