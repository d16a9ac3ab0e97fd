import type { DemoContact, DemoContactList } from '@agentry/contract/schemas';
import { apiFetch } from './client.ts';

export const demoApi = {
  /** The contacts the demo agent's tool saved (embedded mode only: elsewhere the route does not exist). */
  contacts: async (): Promise<DemoContact[]> => (await apiFetch<DemoContactList>('GET', '/v1/demo/contacts')).data,
};
