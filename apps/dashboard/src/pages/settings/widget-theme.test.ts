import { describe, expect, it } from 'vitest';
import { embedSnippet, previewDocument, themeForm, withTheme } from './widget-theme.ts';

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
});
