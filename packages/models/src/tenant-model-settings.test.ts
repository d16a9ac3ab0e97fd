import { describe, expect, it } from 'vitest';
import { type ModelProviderSettings, resolveModel } from './model-settings.ts';
import { withTenantProviders } from './tenant-model-settings.ts';

const operator: ModelProviderSettings = {
  openai: { apiKey: 'sk-operator', baseURL: 'https://proxy.operator.example/v1' },
  anthropic: { apiKey: 'sk-ant-operator' },
  defaultModels: { openai: 'gpt-operator' },
};

describe('model precedence: agent config > tenant providers > operator environment > demo', () => {
  it('uses the tenant’s default provider and model for an agent that names none', () => {
    const settings = withTenantProviders(operator, [
      { provider: 'anthropic', apiKey: 'sk-ant-tenant', defaultModel: 'claude-tenant', isDefault: true },
    ]);
    expect(resolveModel({}, settings)).toEqual({
      provider: 'anthropic',
      name: 'claude-tenant',
      apiKey: 'sk-ant-tenant',
    });
  });

  it('lets the agent’s own model block win, and falls back to the operator for a provider the tenant lacks', () => {
    const settings = withTenantProviders(operator, [
      { provider: 'anthropic', apiKey: 'sk-ant-tenant', isDefault: true },
    ]);
    expect(resolveModel({ provider: 'openai', name: 'gpt-agent' }, settings)).toMatchObject({
      provider: 'openai',
      name: 'gpt-agent',
      apiKey: 'sk-operator',
    });
    expect(resolveModel({ provider: 'anthropic', apiKey: 'sk-agent-own' }, settings).apiKey).toBe('sk-agent-own');
  });

  it('never sends a tenant’s key to the operator’s base URL', () => {
    const settings = withTenantProviders(operator, [{ provider: 'openai', apiKey: 'sk-tenant' }]);
    expect(resolveModel({}, settings)).toEqual({ provider: 'openai', name: 'gpt-operator', apiKey: 'sk-tenant' });
  });

  it('runs an OpenAI-compatible server of the tenant with a base URL alone', () => {
    const settings = withTenantProviders({}, [
      { provider: 'openai_compatible', baseURL: 'http://llm.internal/v1', defaultModel: 'llama', isDefault: true },
    ]);
    expect(resolveModel({}, settings)).toEqual({
      provider: 'openai_compatible',
      name: 'llama',
      apiKey: 'not-needed',
      baseURL: 'http://llm.internal/v1',
      guarded: true,
    });
  });

  it('turns the demo model off for a tenant with its own provider, and keeps it for one without', () => {
    const demo: ModelProviderSettings = { demo: true };
    expect(resolveModel({}, withTenantProviders(demo, [])).provider).toBe('demo');
    const own = withTenantProviders(demo, [{ provider: 'openai', apiKey: 'sk-tenant' }]);
    expect(resolveModel({}, own).provider).toBe('openai');
  });
});
