import { useSyncExternalStore } from 'react';
import { parseRoute, type Route, routeHref } from './routes.ts';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The current screen; re-renders on hash changes (back/forward included). */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}

export function navigate(route: Route, replace = false): void {
  const href = routeHref(route);
  if (replace) window.history.replaceState(null, '', href);
  else window.location.hash = href.slice(1);
  // Tell the screens now: the browser's own hashchange comes a task later, and an input in between
  // would still act on the old route (a filter change right after "clear" kept the old filters).
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}
