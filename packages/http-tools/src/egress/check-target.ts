import { isIP } from 'node:net';
import { addressRuleLabel, classifyAddress } from './address-rules.ts';
import { isAddressAllowlisted, isHostAllowlisted } from './allowlist.ts';
import { EgressError } from './egress-error.ts';
import type { EgressPolicy, ResolvedAddress } from './policy.ts';

/** A URL whose every address passed the policy, with those addresses (the only ones to connect to). */
export interface CheckedTarget {
  url: URL;
  addresses: readonly ResolvedAddress[];
}

const allowedSchemes = new Set(['http:', 'https:']);

/**
 * Checks one hop: the scheme, then every address the host resolves to. Refuses if ANY address is
 * not public, unless the host name or that address is allowlisted.
 *
 * @example
 * const { addresses } = await checkTarget(new URL('https://api.example.com/x'), policy, { hop: 0 });
 */
export async function checkTarget(
  url: URL,
  policy: EgressPolicy,
  options: { hop: number; signal?: AbortSignal },
): Promise<CheckedTarget> {
  const subject = options.hop === 0 ? 'The tool’s' : `Redirect ${options.hop}’s`;
  if (!allowedSchemes.has(url.protocol)) {
    throw new EgressError(
      'egress_forbidden_scheme',
      `${subject} URL must use http or https, not ${JSON.stringify(url.protocol.slice(0, 20))}.`,
      { hop: options.hop },
    );
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  const addresses: readonly ResolvedAddress[] =
    literal === 0 ? await resolve(host, policy, options) : [{ address: host, family: literal === 6 ? 6 : 4 }];
  if (literal === 0 && isHostAllowlisted(policy.parsed, host)) return { url, addresses };
  for (const { address } of addresses) {
    if (isAddressAllowlisted(policy.parsed, address)) continue;
    const verdict = classifyAddress(address);
    if (verdict.public) continue;
    const inside = verdict.embedded ? ', inside an IPv6 address' : '';
    throw new EgressError(
      'egress_forbidden_address',
      `${subject} address is not allowed (${addressRuleLabel[verdict.rule]}${inside}). Ask the platform operator to allowlist it if this is intended.`,
      { rule: verdict.rule, hop: options.hop },
    );
  }
  return { url, addresses };
}

async function resolve(
  host: string,
  policy: EgressPolicy,
  options: { hop: number; signal?: AbortSignal },
): Promise<readonly ResolvedAddress[]> {
  options.signal?.throwIfAborted();
  let answers: readonly ResolvedAddress[];
  try {
    answers = await abortable(policy.lookup(host), options.signal);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new EgressError('egress_dns_failed', 'The tool’s host name could not be resolved.', {
      hop: options.hop,
      cause: error instanceof Error && 'code' in error ? String(error.code) : 'lookup_failed',
    });
  }
  if (answers.length === 0) {
    throw new EgressError('egress_dns_failed', 'The tool’s host name has no addresses.', { hop: options.hop });
  }
  return answers;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
