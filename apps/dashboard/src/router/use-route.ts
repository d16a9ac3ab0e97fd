import { useSyncExternalStore } from 'react';
import { parseRoute, type Route, routeHref } from './routes.ts';

/** Asked before the screen changes; true lets the navigation go ahead (see {@link setLeaveGuard}). */
export type LeaveGuard = () => boolean;

const listeners = new Set<() => void>();
let guard: LeaveGuard | undefined;
/** The hash the screens show. A hash change the guard refuses is put back to this one. */
let committed = typeof window === 'undefined' ? '' : window.location.hash;
let listening = false;

function notify(): void {
  for (const listener of listeners) listener();
}

/**
 * Links, back and forward change the address first and tell us after, so a refused change is undone
 * here, before any screen re-renders: the address goes back to the committed hash (replacing the
 * entry, so the history keeps no trace of the refused screen).
 */
function onHashChange(): void {
  const next = window.location.hash;
  if (next !== committed) {
    if (guard && !guard()) {
      window.history.replaceState(null, '', committed || `${window.location.pathname}${window.location.search}`);
      return;
    }
    committed = next;
  }
  notify();
}

/**
 * Calls `onChange` after every screen change the leave guard allowed (what `useRoute` listens to).
 * Returns the unsubscriber.
 */
export function subscribeToRoute(onChange: () => void): () => void {
  if (!listening) {
    // A change before the first screen subscribed (a sign-in redirect) was not seen by the listener.
    committed = window.location.hash;
    window.addEventListener('hashchange', onHashChange);
    listening = true;
  }
  listeners.add(onChange);
  return () => {
    listeners.delete(onChange);
  };
}

/** The current screen; re-renders on hash changes (back/forward included) the leave guard allows. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribeToRoute, () => committed);
  return parseRoute(hash);
}

/**
 * Installs the one guard asked before in-app navigation leaves the current screen (the editor with
 * unsaved edits asks the user). Returns the uninstaller, which removes only this guard.
 *
 * @example
 * useEffect(() => setLeaveGuard(() => !dirty || window.confirm(t('editor.leaveConfirm'))), [dirty]);
 */
export function setLeaveGuard(next: LeaveGuard): () => void {
  guard = next;
  return () => {
    if (guard === next) guard = undefined;
  };
}

/**
 * Goes to `route`. A new history entry asks the leave guard first; `replace` is a redirect of the
 * current screen (after creating an agent, a tab switch) and does not.
 */
export function navigate(route: Route, replace = false): void {
  const href = routeHref(route);
  if (!replace && href !== committed && guard && !guard()) return;
  committed = href;
  if (replace) window.history.replaceState(null, '', href);
  else window.location.hash = href.slice(1);
  // Tell the screens now: the browser's own hashchange comes a task later, and an input in between
  // would still act on the old route (a filter change right after "clear" kept the old filters).
  notify();
}
