import { describe, expect, it } from 'vitest';
import { en } from './messages-en.ts';
import { zh } from './messages-zh.ts';
import { preferredLanguage, translate } from './translate.ts';

const slots = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('i18n dictionaries', () => {
  it('Chinese has exactly the English keys, none empty', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(zh)) expect(text.trim(), key).not.toBe('');
  });

  it('every message has the same slots in both languages', () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) expect(slots(zh[key]), key).toEqual(slots(en[key]));
  });

  it('fills slots and picks the browser language', () => {
    expect(translate('en', 'editor.problems', { n: 2 })).toBe('2 problem(s)');
    expect(translate('zh', 'editor.problems', { n: 2 })).toBe('2 个问题');
    expect(preferredLanguage(null, ['zh-CN', 'en'])).toBe('zh');
    expect(preferredLanguage('en', ['zh-CN'])).toBe('en');
    expect(preferredLanguage(null, ['de-DE'])).toBe('en');
  });
});
