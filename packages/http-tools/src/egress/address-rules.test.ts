import { describe, expect, it } from 'vitest';
import { classifyAddress } from './address-rules.ts';

describe('classifyAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above 172.16/12
    '169.253.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8', // IPv4-mapped public
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });

  it.each([
    ['127.0.0.1', 'loopback', undefined],
    ['127.255.255.254', 'loopback', undefined],
    ['10.255.255.255', 'private', undefined],
    ['172.16.0.1', 'private', undefined],
    ['172.31.255.255', 'private', undefined],
    ['192.168.0.1', 'private', undefined],
    ['169.254.169.254', 'link_local', undefined],
    ['100.64.0.1', 'carrier_grade_nat', undefined],
    ['100.127.255.255', 'carrier_grade_nat', undefined],
    ['0.0.0.0', 'unspecified', undefined],
    ['0.1.2.3', 'unspecified', undefined],
    ['224.0.0.251', 'multicast', undefined],
    ['239.255.255.250', 'multicast', undefined],
    ['255.255.255.255', 'broadcast', undefined],
    ['240.0.0.1', 'reserved', undefined],
    ['192.0.0.8', 'reserved', undefined],
    ['192.0.2.1', 'reserved', undefined],
    ['198.18.0.1', 'reserved', undefined],
    ['::', 'unspecified', undefined],
    ['::1', 'loopback', undefined],
    ['fe80::1', 'link_local', undefined],
    ['fe80::1%eth0', 'link_local', undefined],
    ['fc00::1', 'unique_local', undefined],
    ['fd12:3456::1', 'unique_local', undefined],
    ['fec0::1', 'private', undefined],
    ['ff02::1', 'multicast', undefined],
    ['::ffff:127.0.0.1', 'loopback', 'ipv4_mapped'],
    ['::ffff:7f00:1', 'loopback', 'ipv4_mapped'],
    ['::ffff:a9fe:a9fe', 'link_local', 'ipv4_mapped'],
    ['::ffff:10.1.2.3', 'private', 'ipv4_mapped'],
    ['::ffff:0:7f00:1', 'loopback', 'ipv4_translated'],
    ['::7f00:1', 'loopback', 'ipv4_compatible'],
    ['::8.8.8.8', 'reserved', 'ipv4_compatible'],
    ['64:ff9b::7f00:1', 'loopback', 'nat64'],
    ['64:ff9b::c0a8:101', 'private', 'nat64'],
    ['64:ff9b:1::808:808', 'private', undefined], // local-use NAT64 prefix
    ['2002:7f00:1::', 'tunnel', undefined], // 6to4
    ['2002:808:808::1', 'tunnel', undefined],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'tunnel', undefined], // Teredo
    ['2001:db8::1', 'reserved', undefined],
    ['100::1', 'reserved', undefined], // discard
    ['4000::1', 'reserved', undefined], // outside 2000::/3
    ['not-an-ip', 'reserved', undefined],
    ['0x7f.1', 'reserved', undefined], // not a canonical address: fail closed
  ])('%s is refused as %s', (address, rule, embedded) => {
    expect(classifyAddress(address)).toEqual({ public: false, rule, ...(embedded ? { embedded } : {}) });
  });
});
