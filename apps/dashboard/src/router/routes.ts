/** The dashboard's screens, addressed by the URL hash so the API can serve one static index.html. */
export type Route =
  | { name: 'agents' }
  | { name: 'new-agent' }
  | ({ name: 'agent'; id: string; tab: EditorTab } & TestsView)
  | ({ name: 'conversations' } & ConversationFilter)
  | { name: 'conversation'; id: string }
  | { name: 'inbox'; id?: string }
  | { name: 'usage'; agentId?: string; days?: number }
  | { name: 'knowledge' }
  | { name: 'knowledge-base'; id: string }
  | { name: 'settings'; tab: SettingsTab }
  | { name: 'accept-invitation'; token: string }
  | { name: 'forgot-password' }
  | { name: 'reset-password'; token: string }
  | { name: 'confirm-email'; token: string };

/** What the Tests tab shows besides its list: a case in the editor (`new`: a new one) or a test run. */
export interface TestsView {
  testId?: string;
  testRunId?: string;
}

/** The conversation list's search and filters, as they appear in the URL (shareable, back-button safe). */
export interface ConversationFilter {
  agentId?: string;
  q?: string;
  /** YYYY-MM-DD, UTC, included. */
  from?: string;
  to?: string;
  status?: string;
  hasError?: boolean;
}

export const EDITOR_TABS = [
  'settings',
  'actions',
  'tools',
  'flows',
  'json',
  'prompt',
  'playground',
  'versions',
  'tests',
] as const;
export type EditorTab = (typeof EDITOR_TABS)[number];

export const SETTINGS_TABS = ['keys', 'secrets', 'providers', 'members', 'widget', 'handoff'] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];

const isTab = (value: string | undefined): value is EditorTab => EDITOR_TABS.includes(value as EditorTab);
const isSettingsTab = (value: string | undefined): value is SettingsTab => SETTINGS_TABS.includes(value as SettingsTab);

/** Query parameter names of the conversation filter, shared with the API's. */
const FILTER_PARAMS = [
  ['agentId', 'agent_id'],
  ['q', 'q'],
  ['from', 'from'],
  ['to', 'to'],
  ['status', 'status'],
] as const;

function readFilter(params: URLSearchParams): ConversationFilter {
  const filter: ConversationFilter = {};
  for (const [field, param] of FILTER_PARAMS) {
    const value = params.get(param);
    if (value) filter[field] = value;
  }
  const hasError = params.get('has_error');
  if (hasError === 'true' || hasError === 'false') filter.hasError = hasError === 'true';
  return filter;
}

/** The filter as query parameters (the API takes the same names). */
export function filterParams(filter: ConversationFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const [field, param] of FILTER_PARAMS) {
    const value = filter[field];
    if (value) params.set(param, value);
  }
  if (filter.hasError !== undefined) params.set('has_error', String(filter.hasError));
  return params;
}

/** `#/agents/{id}/tests/{testId}` or `#/agents/{id}/tests/runs/{runId}` (ids are UUIDs, never `runs`). */
function testsView(parts: string[]): TestsView {
  if (parts[2] !== 'tests') return {};
  if (parts[3] === 'runs') return parts[4] ? { testRunId: parts[4] } : {};
  return parts[3] ? { testId: parts[3] } : {};
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts[0] === 'agents' && parts[1] === 'new') return { name: 'new-agent' };
  if (parts[0] === 'agents' && parts[1])
    return { name: 'agent', id: parts[1], tab: isTab(parts[2]) ? parts[2] : 'settings', ...testsView(parts) };
  if (parts[0] === 'inbox') return parts[1] ? { name: 'inbox', id: parts[1] } : { name: 'inbox' };
  if (parts[0] === 'conversations' && parts[1]) return { name: 'conversation', id: parts[1] };
  if (parts[0] === 'conversations') return { name: 'conversations', ...readFilter(params) };
  if (parts[0] === 'knowledge') return parts[1] ? { name: 'knowledge-base', id: parts[1] } : { name: 'knowledge' };
  if (parts[0] === 'usage') {
    const agentId = params.get('agent_id') ?? undefined;
    const days = Number(params.get('days'));
    return {
      name: 'usage',
      ...(agentId ? { agentId } : {}),
      ...(Number.isInteger(days) && days > 0 ? { days } : {}),
    };
  }
  if (parts[0] === 'settings') return { name: 'settings', tab: isSettingsTab(parts[1]) ? parts[1] : 'keys' };
  if (parts[0] === 'accept-invitation') return { name: 'accept-invitation', token: params.get('token') ?? '' };
  if (parts[0] === 'forgot-password') return { name: 'forgot-password' };
  if (parts[0] === 'reset-password') return { name: 'reset-password', token: params.get('token') ?? '' };
  if (parts[0] === 'confirm-email') return { name: 'confirm-email', token: params.get('token') ?? '' };
  return { name: 'agents' };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'agents':
      return '#/agents';
    case 'new-agent':
      return '#/agents/new';
    case 'agent': {
      const tab = route.tab === 'settings' ? '' : `/${route.tab}`;
      const view =
        route.tab !== 'tests'
          ? ''
          : route.testRunId
            ? `/runs/${encodeURIComponent(route.testRunId)}`
            : route.testId
              ? `/${encodeURIComponent(route.testId)}`
              : '';
      return `#/agents/${encodeURIComponent(route.id)}${tab}${view}`;
    }
    case 'conversations': {
      const query = filterParams(route).toString();
      return query ? `#/conversations?${query}` : '#/conversations';
    }
    case 'conversation':
      return `#/conversations/${encodeURIComponent(route.id)}`;
    case 'inbox':
      return route.id ? `#/inbox/${encodeURIComponent(route.id)}` : '#/inbox';
    case 'usage': {
      const params = new URLSearchParams();
      if (route.agentId) params.set('agent_id', route.agentId);
      if (route.days) params.set('days', String(route.days));
      const query = params.toString();
      return query ? `#/usage?${query}` : '#/usage';
    }
    case 'knowledge':
      return '#/knowledge';
    case 'knowledge-base':
      return `#/knowledge/${encodeURIComponent(route.id)}`;
    case 'settings':
      return `#/settings/${route.tab}`;
    case 'accept-invitation':
    case 'reset-password':
    case 'confirm-email':
      return `#/${route.name}?token=${encodeURIComponent(route.token)}`;
    case 'forgot-password':
      return '#/forgot-password';
  }
}
