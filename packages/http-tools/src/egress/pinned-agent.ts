import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { ResolvedAddress } from './policy.ts';

/**
 * An undici dispatcher that can only connect to `addresses` — the ones the guard checked — so a
 * second DNS answer (DNS rebinding) can never redirect the connection. The URL keeps its host name,
 * so `Host` and TLS SNI/certificate checks still use the original name.
 *
 * One agent serves one hop and is destroyed when its response body ends; connections are not
 * shared between requests (a shared pool could reuse a socket chosen under another check).
 *
 * @example
 * const dispatcher = pinnedAgent([{ address: '93.184.215.14', family: 4 }]);
 * await fetch('https://example.com/', { dispatcher });
 */
export function pinnedAgent(addresses: readonly ResolvedAddress[]): Agent {
  const answers: LookupAddress[] = addresses.map((a) => ({ address: a.address, family: a.family }));
  const first = answers[0];
  if (!first) throw new Error('pinnedAgent needs at least one address');
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: LookupAddress[]) => void)(null, answers);
    else callback(null, first.address, first.family);
  };
  return new Agent({ connect: { lookup }, connections: 1 });
}
