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
  if (replace) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else window.location.hash = href.slice(1);
}
