import type { Agent } from '@agentry/contract/schemas';
import { agentsApi } from '../api/agents-api.ts';
import { useLoad } from './use-load.ts';

const NONE: Agent[] = [];

/**
 * The tenant's agents for pickers and names. A failed load leaves the list empty: the page
 * still works, with ids for names.
 *
 * @example
 * const agents = useAgents();
 */
export function useAgents(): Agent[] {
  return useLoad(() => agentsApi.list()).data ?? NONE;
}
