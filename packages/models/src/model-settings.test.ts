import { describe, expect, it } from 'vitest';
import { createModel, resolveModel } from './model-settings.ts';

describe('resolveModel and the demo model', () => {
  it('answers with the demo model only when nothing at all is configured and the demo is on', () => {
    expect(resolveModel({}, { demo: true })).toMatchObject({ provider: 'demo', name: 'agentry-demo' });
    expect(createModel(resolveModel({ provider: 'anthropic' }, { demo: true }), { demo: true }).provider).toBe('demo');
    expect(() => resolveModel({}, {})).toThrow(expect.objectContaining({ code: 'model_not_configured' }));
  });

  it('is off as soon as any provider is configured, or the agent brings its own key', () => {
    const settings = { demo: true, openai: { apiKey: 'sk-x' } };
    expect(resolveModel({}, settings).provider).toBe('openai');
    expect(resolveModel({ apiKey: 'sk-own' }, { demo: true }).provider).toBe('openai');
  });
});
