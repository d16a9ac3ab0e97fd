import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parseAddress } from './address-rules.ts';

/** A parsed allowlist: exact host names, `*.domain` suffixes and address ranges. */
export interface ParsedAllowlist {
  readonly hosts: ReadonlySet<string>;
  /** `corp.example` for the entry `*.corp.example` (matches sub-domains only, not the apex). */
  readonly suffixes: readonly string[];
  readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

type Entry =
  | { kind: 'host'; host: string }
  | { kind: 'suffix'; suffix: string }
  | { kind: 'range'; range: [ipaddr.IPv4 | ipaddr.IPv6, number] };

const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

function hostName(text: string): string | undefined {
  const host = text.endsWith('.') ? text.slice(0, -1) : text;
  if (host.length === 0 || host.length > 253) return undefined;
  // Punycode and case are normalised the way URLs are, so `Bücher.example` matches `xn--bcher-kva.example`.
  let ascii: string;
  try {
    const url = new URL(`http://${host}/`);
    if (url.host !== url.hostname || url.pathname !== '/' || url.username || url.password) return undefined;
    ascii = url.hostname;
  } catch {
    return undefined;
  }
  if (isIP(ascii)) return undefined; // numeric spellings (`2130706433`) normalise to an IP: not a host name
  return ascii.split('.').every((part) => label.test(part)) ? ascii : undefined;
}

function parseEntry(raw: string): Entry | undefined {
  const text = raw.trim().toLowerCase();
  if (text.includes('/')) {
    const [address = '', bits = ''] = text.split('/');
    if (!/^\d{1,3}$/.test(bits)) return undefined;
    if (isIP(address) === 4 && ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) {
      return { kind: 'range', range: ipaddr.IPv4.parseCIDR(text) };
    }
    const v6 = isIP(address) === 6 && !address.includes('%') ? parseAddress(address) : undefined;
    if (v6 && ipaddr.IPv6.isValidCIDR(text)) return { kind: 'range', range: [v6, Number(bits)] };
    return undefined;
  }
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const version = isIP(bare);
  if (version !== 0) {
    const parsed = bare.includes('%') ? undefined : parseAddress(bare);
    return parsed ? { kind: 'range', range: [parsed, version === 4 ? 32 : 128] } : undefined;
  }
  if (text.startsWith('*.')) {
    const suffix = hostName(text.slice(2));
    return suffix ? { kind: 'suffix', suffix } : undefined;
  }
  const host = hostName(text);
  return host ? { kind: 'host', host } : undefined;
}

/**
 * The entries of `entries` that are not a host name, `*.domain` wildcard, IP address or CIDR
 * (for validating an operator's input before storing it).
 *
 * @example
 * invalidAllowlistEntries(['10.0.0.0/8', 'intranet.local', '*', 'a b']); // ['*', 'a b']
 */
export function invalidAllowlistEntries(entries: readonly string[]): string[] {
  return entries.filter((entry) => entry.trim() !== '' && parseEntry(entry) === undefined);
}

/**
 * Parses allowlist entries: host names (`intranet.local`), sub-domain wildcards (`*.corp.example`),
 * IP addresses (`127.0.0.1`, `::1`) and CIDRs (`10.0.0.0/8`, `fd00::/8`). Blank entries are skipped.
 * Throws a `TypeError` naming every invalid entry.
 *
 * @example
 * const list = parseAllowlist(['10.0.0.0/8', '*.corp.example']);
 */
export function parseAllowlist(entries: readonly string[]): ParsedAllowlist {
  const bad = invalidAllowlistEntries(entries);
  if (bad.length > 0) {
    throw new TypeError(
      `Invalid egress allowlist entries: ${bad.map((e) => JSON.stringify(e)).join(', ')} (use host names, *.domain, IP addresses or CIDRs)`,
    );
  }
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const raw of entries) {
    if (raw.trim() === '') continue;
    const entry = parseEntry(raw);
    if (entry?.kind === 'host') hosts.add(entry.host);
    else if (entry?.kind === 'suffix') suffixes.push(entry.suffix);
    else if (entry?.kind === 'range') ranges.push(entry.range);
  }
  return { hosts, suffixes, ranges };
}

/**
 * Joins allowlists (the process-wide `EGRESS_ALLOWLIST`, a tenant's own list, …): trimmed,
 * lower-cased, blanks and duplicates dropped, order kept. Missing lists are ignored.
 *
 * @example
 * mergeAllowlists(config.egressAllowlist, tenant.egressAllowlist); // ['10.0.0.0/8', 'crm.internal']
 */
export function mergeAllowlists(...lists: Array<readonly string[] | null | undefined>): string[] {
  const merged = new Set<string>();
  for (const list of lists) {
    for (const entry of list ?? []) {
      const text = entry.trim().toLowerCase();
      if (text) merged.add(text);
    }
  }
  return [...merged];
}

/** Whether a URL host name (lower case, as `URL#hostname` gives it) is allowlisted by name. */
export function isHostAllowlisted(list: ParsedAllowlist, hostname: string): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (list.hosts.has(host)) return true;
  return list.suffixes.some((suffix) => host.endsWith(`.${suffix}`));
}

/** Whether an IP address falls in an allowlisted address or CIDR (IPv4-mapped IPv6 matches its IPv4 form). */
export function isAddressAllowlisted(list: ParsedAllowlist, address: string): boolean {
  const parsed = list.ranges.length === 0 ? undefined : parseAddress(address);
  if (!parsed) return false;
  const forms: Array<ipaddr.IPv4 | ipaddr.IPv6> = [parsed];
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    forms.push((parsed as ipaddr.IPv6).toIPv4Address());
  }
  return list.ranges.some(([net, bits]) => forms.some((form) => form.kind() === net.kind() && form.match(net, bits)));
}
