/** The dashboard's screens, addressed by the URL hash so the API can serve one static index.html. */
export type Route =
  | { name: 'agents' }
  | { name: 'new-agent' }
  | { name: 'agent'; id: string; tab: EditorTab }
  | { name: 'conversations'; agentId?: string }
  | { name: 'conversation'; id: string };

export const EDITOR_TABS = ['settings', 'actions', 'tools', 'json', 'prompt', 'playground', 'versions'] as const;
export type EditorTab = (typeof EDITOR_TABS)[number];

const isTab = (value: string | undefined): value is EditorTab => EDITOR_TABS.includes(value as EditorTab);

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === 'agents' && parts[1] === 'new') return { name: 'new-agent' };
  if (parts[0] === 'agents' && parts[1])
    return { name: 'agent', id: parts[1], tab: isTab(parts[2]) ? parts[2] : 'settings' };
  if (parts[0] === 'conversations' && parts[1]) return { name: 'conversation', id: parts[1] };
  if (parts[0] === 'conversations') {
    const agentId = params.get('agent_id') ?? undefined;
    return agentId ? { name: 'conversations', agentId } : { name: 'conversations' };
  }
  return { name: 'agents' };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'agents':
      return '#/agents';
    case 'new-agent':
      return '#/agents/new';
    case 'agent':
      return `#/agents/${encodeURIComponent(route.id)}${route.tab === 'settings' ? '' : `/${route.tab}`}`;
    case 'conversations':
      return route.agentId ? `#/conversations?agent_id=${encodeURIComponent(route.agentId)}` : '#/conversations';
    case 'conversation':
      return `#/conversations/${encodeURIComponent(route.id)}`;
  }
}
