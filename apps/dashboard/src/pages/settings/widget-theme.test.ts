import { WIDGET_DEFAULT_COLORS } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { embedSnippet, pickerColor, previewDocument, themeForm, withTheme } from './widget-theme.ts';

describe('widget theme form', () => {
  const config = {
    basic_settings: { name: 'Bot' },
    widget: { title: 'Old', allowed_origins: ['https://a.example'], browser_js_eval: true, colors: { text: '#111' } },
  };

  it('round-trips the settings and keeps what the form does not edit', () => {
    const form = {
      ...themeForm(config.widget),
      title: ' Help ',
      primary: '#1a73e8',
      text: '',
      questions: 'Hours?\n\n Price? ',
    };
    expect(withTheme(config, form).widget).toEqual({
      title: 'Help',
      colors: { primary: '#1a73e8' },
      position: 'bottom-right',
      suggested_questions: ['Hours?', 'Price?'],
      browser_js_eval: true,
      allowed_origins: ['https://a.example'],
    });
    expect(themeForm(withTheme(config, form).widget as never).questions).toBe('Hours?\nPrice?');
  });

  it('writes the embed snippet and a preview page with escaped attributes', () => {
    expect(embedSnippet('https://api.example', 'pk_1', 'a1')).toBe(
      '<script src="https://api.example/widget.js" data-key="pk_1" data-agent="a1" async></script>',
    );
    const html = previewDocument({
      scriptOrigin: 'http://x',
      apiBase: 'http://x',
      key: 'pk"><b>',
      agentId: 'a',
      lang: 'en',
      text: '<i>',
    });
    expect(html).toContain('data-key="pk&quot;>&lt;b>"');
    expect(html).not.toContain('<i>');
  });

  it('shows the colour the widget will use: the default when unset or invalid, #rgb expanded', () => {
    expect(pickerColor('', 'primary')).toBe(WIDGET_DEFAULT_COLORS.primary);
    expect(pickerColor('', 'primary')).toBe('#2563eb');
    expect(pickerColor('', 'background')).toBe('#ffffff');
    expect(pickerColor('', 'text')).toBe('#1f2937');
    expect(pickerColor('#12', 'text')).toBe(WIDGET_DEFAULT_COLORS.text);
    expect(pickerColor('#0A7', 'primary')).toBe('#00aa77');
    expect(pickerColor(' #1A73E8 ', 'primary')).toBe('#1a73e8');
  });
});
