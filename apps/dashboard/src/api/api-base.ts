/**
 * Where the API lives. Same origin by default (the API serves the dashboard at /dashboard).
 * `?api=http://host:port` overrides it for a dashboard served elsewhere (the API must then allow
 * the origin); the choice is kept for the tab's session.
 */
const BASE_STORAGE = 'agentry.apiBase';

export function resolveApiBase(search: string, stored: string | null): string {
  const fromQuery = new URLSearchParams(search).get('api');
  const chosen = fromQuery ?? stored ?? '';
  return chosen.replace(/\/+$/, '');
}

let cached: string | undefined;

export function apiBase(): string {
  if (cached === undefined) {
    cached = resolveApiBase(window.location.search, sessionStorage.getItem(BASE_STORAGE));
    if (cached) sessionStorage.setItem(BASE_STORAGE, cached);
  }
  return cached;
}
