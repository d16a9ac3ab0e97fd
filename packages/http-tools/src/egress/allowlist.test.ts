import { describe, expect, it } from 'vitest';
import {
  invalidAllowlistEntries,
  isAddressAllowlisted,
  isHostAllowlisted,
  mergeAllowlists,
  parseAllowlist,
} from './allowlist.ts';

describe('allowlists', () => {
  it('accepts hosts, *.domain wildcards, addresses and CIDRs', () => {
    expect(
      invalidAllowlistEntries([
        'intranet.local',
        'CRM.Internal.',
        '*.corp.example',
        '127.0.0.1',
        '::1',
        '[fd00::1]',
        '10.0.0.0/8',
        'fd00::/8',
        'bücher.example',
        ' ',
      ]),
    ).toEqual([]);
  });

  it('names the entries it cannot use', () => {
    const bad = [
      '*',
      '*.',
      'http://x',
      'host:8080',
      'a b',
      '10.0.0.0/33',
      '10.0/8',
      '0x7f.1/8',
      'x/y',
      '-a.example',
      '2130706433',
    ];
    expect(invalidAllowlistEntries(bad)).toEqual(bad);
    expect(() => parseAllowlist(['ok.example', 'a b'])).toThrow(/"a b"/);
  });

  it('matches host names exactly or on a sub-domain boundary', () => {
    const list = parseAllowlist(['intranet.local', '*.corp.example', 'bücher.example']);
    expect(isHostAllowlisted(list, 'intranet.local')).toBe(true);
    expect(isHostAllowlisted(list, 'intranet.local.')).toBe(true);
    expect(isHostAllowlisted(list, 'x.intranet.local')).toBe(false);
    expect(isHostAllowlisted(list, 'a.b.corp.example')).toBe(true);
    expect(isHostAllowlisted(list, 'corp.example')).toBe(false);
    expect(isHostAllowlisted(list, 'evilcorp.example')).toBe(false);
    expect(isHostAllowlisted(list, 'xn--bcher-kva.example')).toBe(true);
  });

  it('matches addresses against addresses and CIDRs, including IPv4-mapped forms', () => {
    const list = parseAllowlist(['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
    expect(isAddressAllowlisted(list, '10.20.30.40')).toBe(true);
    expect(isAddressAllowlisted(list, '11.0.0.1')).toBe(false);
    expect(isAddressAllowlisted(list, '192.168.1.5')).toBe(true);
    expect(isAddressAllowlisted(list, '192.168.1.6')).toBe(false);
    expect(isAddressAllowlisted(list, '::ffff:10.0.0.1')).toBe(true);
    expect(isAddressAllowlisted(list, 'fd00::1')).toBe(true);
    expect(isAddressAllowlisted(list, 'fe80::1')).toBe(false);
    expect(isAddressAllowlisted(list, 'intranet.local')).toBe(false);
  });

  it('merges lists without blanks or duplicates', () => {
    expect(
      mergeAllowlists(['10.0.0.0/8', ' CRM.internal '], undefined, ['crm.internal', '', '*.corp.example']),
    ).toEqual(['10.0.0.0/8', 'crm.internal', '*.corp.example']);
    expect(mergeAllowlists()).toEqual([]);
  });
});
