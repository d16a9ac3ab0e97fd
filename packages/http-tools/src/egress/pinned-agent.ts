import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { Agent } from 'undici';
import type { ResolvedAddress } from './policy.ts';

/**
 * Kept-alive agents by origin and checked address set. A request reuses a connection only when its
 * own check, just made, allowed exactly the addresses that connection was opened to: the socket is
 * one the current policy would open anyway. Keep-alive saves a TCP (and TLS) handshake per call to
 * the same tool server; an agent dropped from the cache closes once its requests are done.
 */
const agents = new LRUCache<string, Agent>({
  max: 256,
  dispose: (agent) => void agent.close().catch(() => {}),
});

/**
 * The pinned agent for `origin` and the addresses the guard checked for it, shared by every request
 * whose check gave the same answer.
 *
 * @example
 * const dispatcher = pooledPinnedAgent('https://api.example.com', target.addresses);
 */
export function pooledPinnedAgent(origin: string, addresses: readonly ResolvedAddress[]): Agent {
  const key = `${origin} ${addresses.map((a) => `${a.family}/${a.address}`).join(',')}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = pinnedAgent(addresses);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * Closes every kept-alive agent (requests in flight finish first): for shutdown, and for tests
 * that count the connections a request opens.
 *
 * @example
 * await closePooledAgents();
 */
export async function closePooledAgents(): Promise<void> {
  const open = [...agents.values()];
  agents.clear();
  await Promise.all(open.map((agent) => agent.close().catch(() => {})));
}

/**
 * An undici dispatcher that can only connect to `addresses` — the ones the guard checked — so a
 * second DNS answer (DNS rebinding) can never redirect the connection. The URL keeps its host name,
 * so `Host` and TLS SNI/certificate checks still use the original name.
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
  return new Agent({ connect: { lookup } });
}
