import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an address may not be reached. Stable: shown to tenants and the model as `rule`. */
export type AddressRule =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'reserved'
  | 'unique_local'
  | 'tunnel';

export type AddressClass =
  | { public: true }
  | {
      public: false;
      rule: AddressRule;
      /** Set when the refused IPv4 address sits inside an IPv6 one (`::ffff:127.0.0.1`, NAT64 `64:ff9b::a00:1`). */
      embedded?: 'ipv4_mapped' | 'nat64' | 'ipv4_compatible' | 'ipv4_translated';
    };

/** Human wording of each rule, for messages (never contains an address). */
export const addressRuleLabel: Record<AddressRule, string> = {
  loopback: 'loopback',
  private: 'private network',
  link_local: 'link-local, including cloud metadata',
  carrier_grade_nat: 'carrier-grade NAT',
  multicast: 'multicast',
  broadcast: 'broadcast',
  unspecified: 'unspecified address',
  reserved: 'reserved or special-purpose range',
  unique_local: 'IPv6 unique local, a private network',
  tunnel: 'IPv6 tunnel (6to4 or Teredo)',
};

const ipv4Rules: Record<string, AddressRule | undefined> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
};

const ipv6Rules: Record<string, AddressRule | undefined> = {
  unspecified: 'unspecified',
  linkLocal: 'link_local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'private',
  '6to4': 'tunnel',
  teredo: 'tunnel',
};

/** 2000::/3, the only IPv6 block handed out for global unicast. */
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
/** 64:ff9b::/96, the well-known NAT64 prefix: the last 32 bits are a public IPv4 address. */
const nat64WellKnown = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Parses an IP address. IPv6 text is first put in the WHATWG URL's canonical form (hex only, zone
 * dropped): ipaddr.js reads the dotted tail of `::8.8.8.8` as if it were `::ffff:8.8.8.8`.
 *
 * @example
 * parseAddress('::127.0.0.1')?.toNormalizedString(); // '0:0:0:0:0:0:7f00:1'
 */
export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 4) return ipaddr.IPv4.parse(bare);
  if (version !== 6) return undefined;
  const withoutZone = bare.split('%')[0] ?? '';
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${withoutZone}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

/**
 * Classifies one IP address (as `dns.lookup` or a URL host gives it). Fails closed: only public
 * unicast addresses are `public`; IPv4 addresses inside IPv6 ones (IPv4-mapped, IPv4-compatible,
 * NAT64) are judged by the IPv4 address they carry; 6to4 and Teredo are refused outright; an IPv6
 * address outside 2000::/3 is reserved; anything unparsable is reserved.
 *
 * @example
 * classifyAddress('169.254.169.254'); // { public: false, rule: 'link_local' }
 * classifyAddress('::ffff:7f00:1');   // { public: false, rule: 'loopback', embedded: 'ipv4_mapped' }
 * classifyAddress('93.184.215.14');   // { public: true }
 */
export function classifyAddress(address: string): AddressClass {
  const parsed = parseAddress(address);
  if (!parsed) return { public: false, rule: 'reserved' };
  if (parsed.kind() === 'ipv4') return classifyIPv4(parsed as ipaddr.IPv4);
  return classifyIPv6(parsed as ipaddr.IPv6);
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  const range: string = address.range();
  if (range === 'unicast') return { public: true };
  return { public: false, rule: ipv4Rules[range] ?? 'reserved' };
}

function classifyIPv6(address: ipaddr.IPv6): AddressClass {
  const range: string = address.range();
  const parts = address.parts;
  const embeddedV4 = () => {
    const [hi = 0, lo = 0] = parts.slice(6);
    return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  };
  const judgeEmbedded = (
    embedded: 'ipv4_mapped' | 'nat64' | 'ipv4_compatible' | 'ipv4_translated',
    publicAllowed: boolean,
  ): AddressClass => {
    const inner = classifyIPv4(embeddedV4());
    if (!inner.public) return { ...inner, embedded };
    return publicAllowed ? { public: true } : { public: false, rule: 'reserved', embedded };
  };
  if (range === 'ipv4Mapped') return judgeEmbedded('ipv4_mapped', true);
  if (range === 'rfc6145') return judgeEmbedded('ipv4_translated', false);
  if (range === 'rfc6052') {
    // Only the well-known /96 carries a global IPv4 address; the local-use 64:ff9b:1::/48 is private NAT64.
    return address.match(nat64WellKnown) ? judgeEmbedded('nat64', true) : { public: false, rule: 'private' };
  }
  const rule = ipv6Rules[range];
  if (rule) return { public: false, rule };
  // ::/96 minus :: and ::1 are deprecated IPv4-compatible addresses (`::127.0.0.1`); judge what they carry.
  if (parts.slice(0, 6).every((p) => p === 0)) return judgeEmbedded('ipv4_compatible', false);
  if (range === 'unicast' && address.match(globalUnicast)) return { public: true };
  return { public: false, rule: 'reserved' };
}
