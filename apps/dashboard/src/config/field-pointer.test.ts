import { describe, expect, it } from 'vitest';
import { fieldId, fieldPointer, issuesByField, isUnder } from './field-pointer.ts';
import { parsePointer, toPointer } from './json-pointer.ts';

describe('loader issue → form field', () => {
  it.each([
    ['/basic_settings/name', '/basic_settings/name'],
    ['/basic_settings', '/basic_settings'],
    ['/knowledge/bases/1', '/knowledge/bases'],
    ['/knowledge/top_k', '/knowledge/top_k'],
    ['/action_books/1/tools/0', '/action_books/1/tools'],
    ['/action_books/1', '/action_books/1'],
    ['/tools/0/endpoint/body/email', '/tools/0/endpoint/body/email'],
    ['/tools/0/endpoint/body/address/street', '/tools/0/endpoint/body/address'],
    ['/tools/0/endpoint/headers/X-Id', '/tools/0/endpoint/headers/X-Id'],
    ['/tools/0/endpoint/headers', '/tools/0/endpoint/headers'],
    ['/tools/0/endpoint/url', '/tools/0/endpoint/url'],
    ['/tools/0/endpoint', '/tools/0/endpoint'],
    ['/tools/2/parameters/properties/email/type', '/tools/2/parameters/properties/email'],
    ['/tools/2/parameters/required/1', '/tools/2/parameters'],
    ['/tools/0/response/fields/0', '/tools/0/response/fields'],
    ['/tools/0/name', '/tools/0/name'],
    ['/tools/0', '/tools/0'],
    ['/context/0/name', '/context/0/name'],
    ['/model/temperature', '/model/temperature'],
    ['/widget/colors/primary', '/widget'],
    ['/flows/0/name', '/flows/0/name'],
    ['/flows/0', '/flows/0'],
    ['/flows/1/triggers/patterns/2', '/flows/1/triggers/patterns/2'],
    ['/flows/0/slots/start/schema/format', '/flows/0/slots/start'],
    ['/flows/0/slots/start/pattern', '/flows/0/slots/start/pattern'],
    ['/flows/0/steps/2/slot', '/flows/0/steps/2/slot'],
    ['/flows/0/steps/2', '/flows/0/steps/2'],
    ['/flows/0/steps/4/arguments/start', '/flows/0/steps/4/arguments/start'],
    ['/flows/0/steps/4/save/id', '/flows/0/steps/4/save/id'],
    ['/flows/0/steps/3/branches/1/when/properties', '/flows/0/steps/3/branches/1'],
    ['', ''],
  ])('%s → %s', (pointer, field) => {
    expect(fieldPointer(pointer)).toBe(field);
  });

  it('keeps escaped keys intact', () => {
    expect(parsePointer('/tools/0/endpoint/headers/a~1b~0c')).toEqual(['tools', '0', 'endpoint', 'headers', 'a/b~c']);
    expect(toPointer(['tools', 0, 'endpoint', 'headers', 'a/b~c'])).toBe('/tools/0/endpoint/headers/a~1b~0c');
    expect(fieldPointer('/tools/0/endpoint/headers/a~1b')).toBe('/tools/0/endpoint/headers/a~1b');
  });

  it('groups issues by field and tells what lies under a card', () => {
    const grouped = issuesByField([
      { path: '/tools/0/endpoint/body/email', code: 'unknown_placeholder', message: 'x' },
      { path: '/tools/0/endpoint/body/email', code: 'other', message: 'y' },
      { path: '/basic_settings/name', code: 'too_short', message: 'z' },
    ]);
    expect(grouped.get('/tools/0/endpoint/body/email')).toHaveLength(2);
    expect(isUnder('/tools/0/endpoint/body/email', '/tools/0')).toBe(true);
    expect(isUnder('/tools/10', '/tools/1')).toBe(false);
  });

  it('makes selector-safe ids', () => {
    expect(fieldId('/tools/0/endpoint/body/e.mail')).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(fieldId('/a/b')).not.toBe(fieldId('/a_b'));
  });
});
