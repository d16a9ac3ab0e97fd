import { lookup as dnsLookup } from 'node:dns/promises';
import { type ParsedAllowlist, parseAllowlist } from './allowlist.ts';

/** One resolved address, as `dns.lookup(…, { all: true })` returns them. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Tests inject their own to simulate DNS answers. */
export type EgressLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface EgressPolicyOptions {
  /**
   * Destinations that may be reached even though they are private: host names (`intranet.local`),
   * sub-domain wildcards (`*.corp.example`, not the apex), IP addresses and CIDRs (`10.0.0.0/8`).
   * Default: none.
   */
  allowlist?: readonly string[];
  /** Redirects followed per request, each re-checked (default 5; 0 refuses every redirect). */
  maxRedirects?: number;
  /** Hard ceiling on the bytes of one response body (default 10 MiB). */
  maxResponseBytes?: number;
  /** Hard ceiling on one request, redirects and body included (default 120 s). */
  timeoutMs?: number;
  /** Name resolution (default: `dns.lookup` with `all: true`). */
  lookup?: EgressLookup;
}

/** A checked, immutable egress policy; build it with {@link createEgressPolicy}. */
export interface EgressPolicy {
  readonly allowlist: readonly string[];
  readonly maxRedirects: number;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  readonly lookup: EgressLookup;
  /** @internal the parsed form of `allowlist`. */
  readonly parsed: ParsedAllowlist;
}

const defaultLookup: EgressLookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function positiveInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`egress ${name} must be an integer ≥ ${min}`);
  return value;
}

/**
 * Builds the rules for outbound requests to tenant-controlled addresses. Throws a `TypeError`
 * for an invalid allowlist entry, so a bad `EGRESS_ALLOWLIST` stops the process at start.
 *
 * @example
 * const policy = createEgressPolicy({ allowlist: mergeAllowlists(config.egressAllowlist, tenant.egressAllowlist) });
 * const res = await egressFetch(request, { policy, signal });
 */
export function createEgressPolicy(options: EgressPolicyOptions = {}): EgressPolicy {
  const allowlist = Object.freeze([...(options.allowlist ?? [])]);
  return Object.freeze({
    allowlist,
    maxRedirects: positiveInt('maxRedirects', options.maxRedirects ?? 5, 0),
    maxResponseBytes: positiveInt('maxResponseBytes', options.maxResponseBytes ?? 10 * 1024 * 1024, 1),
    timeoutMs: positiveInt('timeoutMs', options.timeoutMs ?? 120_000, 1),
    lookup: options.lookup ?? defaultLookup,
    parsed: parseAllowlist(allowlist),
  });
}

/**
 * The default: no allowlist, public addresses only.
 *
 * @example
 * await egressFetch(request, { policy: strictEgressPolicy });
 */
export const strictEgressPolicy: EgressPolicy = createEgressPolicy();

/**
 * The same policy with more allowed destinations (a tenant's own allowlist on top of the
 * platform's); returns `base` itself when there is nothing to add.
 *
 * @example
 * const policy = withAllowlist(platformPolicy, tenant.egressAllowlist);
 */
export function withAllowlist(base: EgressPolicy, extra: readonly string[]): EgressPolicy {
  if (extra.length === 0) return base;
  return createEgressPolicy({
    allowlist: [...new Set([...base.allowlist, ...extra])],
    maxRedirects: base.maxRedirects,
    maxResponseBytes: base.maxResponseBytes,
    timeoutMs: base.timeoutMs,
    lookup: base.lookup,
  });
}
