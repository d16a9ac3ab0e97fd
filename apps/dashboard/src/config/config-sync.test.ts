import { describe, expect, it } from 'vitest';
import { blankConfig } from './agent-config.ts';
import { setIn } from './config-edit.ts';
import { configToText, fileTextToConfig, textToConfig } from './config-sync.ts';
import { objectToRows, rowsToObject } from './key-value-rows.ts';
import { rowsToSchema, schemaToRows } from './schema-builder.ts';

describe('form ⇄ JSON sync', () => {
  it('a form edit shows in the JSON text, and the text reads back to the same config', () => {
    let config = blankConfig();
    config = setIn(config, ['basic_settings', 'name'], 'Booker');
    config = setIn(config, ['tools', 0], { name: 'save', description: 'Save', endpoint: { url: 'https://x.test' } });
    config = setIn(
      config,
      ['tools', 0, 'endpoint', 'body'],
      rowsToObject([{ key: 'email', value: '{{email}}', json: false }]),
    );
    const text = configToText(config);
    expect(text).toContain('"name": "Booker"');
    expect(text).toContain('"email": "{{email}}"');
    const back = textToConfig(text);
    expect(back).toEqual({ ok: true, config });
  });

  it('a JSON edit reaches the form fields', () => {
    const text = configToText(blankConfig()).replace('"name": ""', '"name": "Edited in JSON"');
    const parsed = textToConfig(text);
    expect(parsed.ok && parsed.config.basic_settings.name).toBe('Edited in JSON');
  });

  it('keeps the form when the JSON does not parse, and says where', () => {
    const parsed = textToConfig('{\n  "basic_settings": {\n    "name": "x",\n  }\n}');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toBeTruthy();
    expect(textToConfig('[1]').ok).toBe(false);
  });

  it('setIn copies instead of mutating and deletes on undefined', () => {
    const config = blankConfig();
    const next = setIn(config, ['basic_settings', 'tone'], undefined);
    expect(config.basic_settings.tone).toBe('');
    expect('tone' in next.basic_settings).toBe(false);
    expect(next.tools).toBe(config.tools);
  });

  it('key/value rows and parameter rows round-trip', () => {
    const body = { email: '{{email}}', count: 3, nested: { a: 1 } };
    expect(rowsToObject(objectToRows(body))).toEqual(body);
    const schema = { type: 'object' as const, properties: { email: { type: 'string' } }, required: ['email'] };
    expect(rowsToSchema(schemaToRows(schema), schema)).toEqual(schema);
  });

  it('drops $schema from a dropped file', () => {
    const parsed = fileTextToConfig('{"$schema": "./x.json", "basic_settings": {"name": "A"}}');
    expect(parsed).toEqual({ ok: true, config: { basic_settings: { name: 'A' } } });
  });
});
