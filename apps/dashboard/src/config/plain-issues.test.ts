import type { FieldIssue } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { translate } from '../i18n/translate.ts';
import { fieldId } from './field-pointer.ts';
import { fieldLabel, isStructuralEdit, plainIssue, visibleIssues } from './plain-issues.ts';

const en = (key: Parameters<typeof translate>[1], vars?: Record<string, string | number>) => translate('en', key, vars);
const zh = (key: Parameters<typeof translate>[1], vars?: Record<string, string | number>) => translate('zh', key, vars);
const config = { tools: [{ name: 'lookup' }], flows: [{ name: '' }] };
const issue = (path: string, code = 'empty_value', message = `${path} must not be empty`): FieldIssue => ({
  path,
  code,
  message,
});

describe('fieldLabel', () => {
  it('names fields by the label the form shows, with the card they sit on', () => {
    expect(fieldLabel('/basic_settings/name', config, en)).toBe('Name');
    expect(fieldLabel('/tools/0/endpoint/url', config, en)).toBe('Tool lookup › URL');
    expect(fieldLabel('/tools/0/endpoint/body/email', config, en)).toBe('Tool lookup › JSON body › email');
    expect(fieldLabel('/tools/0/parameters/properties/q/type', config, en)).toBe('Tool lookup › Parameters › q');
    expect(fieldLabel('/action_books/1/condition', config, en)).toBe('Action book 2 › When…');
    expect(fieldLabel('/flows/0/name', config, en)).toBe('Flow 1 › Flow name');
    expect(fieldLabel('/knowledge/top_k', config, en)).toBe('Knowledge › Number of sources');
    expect(fieldLabel('/knowledge/bases/0', config, en)).toBe('Knowledge › Knowledge bases');
    expect(fieldLabel('/webhooks/0/url', config, en)).toBeUndefined();
  });
});

describe('plainIssue', () => {
  it('says what is wrong in plain words, in English and Chinese', () => {
    expect(plainIssue(issue('/basic_settings/name'), config, en).message).toBe('Name can’t be empty.');
    expect(plainIssue(issue('/basic_settings/name'), config, zh).message).toBe('名称不能为空。');
    expect(plainIssue(issue('/tools/0/endpoint/url', 'invalid_url'), config, en).message).toMatch(
      /^Tool lookup › URL must be a full web address/,
    );
  });

  it('keeps the loader message after the label when there is no plain sentence for the code', () => {
    const typo = issue('/tools/0/endpoint/body/email', 'unknown_placeholder', 'Unknown placeholder {{emial}}');
    expect(plainIssue(typo, config, en).message).toBe('Tool lookup › JSON body › email: Unknown placeholder {{emial}}');
  });

  it('leaves issues of fields the form has no label for as the loader wrote them', () => {
    const other = issue('/webhooks/0/url');
    expect(plainIssue(other, config, en)).toBe(other);
  });
});

describe('visibleIssues', () => {
  const issues = [issue('/basic_settings/name'), issue('/tools/0/description'), issue('/tools/0/endpoint/body/x')];
  const none = { all: false, edited: new Set<string>(), left: new Set<string>() };

  it('shows nothing before the user touched anything', () => {
    expect(visibleIssues(issues, none)).toEqual([]);
  });

  it('shows the issues of an edited field, and of rows in an edited section', () => {
    const seen = { ...none, edited: new Set(['/basic_settings/name', '/tools/0/endpoint/body']) };
    expect(visibleIssues(issues, seen).map((i) => i.path)).toEqual([
      '/basic_settings/name',
      '/tools/0/endpoint/body/x',
    ]);
  });

  it('does not count adding a list item (a tool) as touching its fields', () => {
    expect(isStructuralEdit(['tools', 0])).toBe(true);
    expect(isStructuralEdit(['tools', 0, 'description'])).toBe(false);
  });

  it('shows the issues of a field the user left, and all of them after a save attempt', () => {
    const left = new Set([fieldId('/tools/0/description')]);
    expect(visibleIssues(issues, { ...none, left }).map((i) => i.path)).toEqual(['/tools/0/description']);
    expect(visibleIssues(issues, { ...none, all: true })).toEqual(issues);
  });
});
