import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** Just enough of a browser window for the router: a hash, history.replaceState and events. */
function fakeWindow(start: string) {
  let hash = start;
  const win = Object.assign(new EventTarget(), {
    location: {
      pathname: '/dashboard/',
      search: '',
      get hash() {
        return hash;
      },
      set hash(value: string) {
        hash = value.startsWith('#') ? value : `#${value}`;
      },
    },
    history: {
      replaceState: (_state: unknown, _title: string, url: string) => {
        hash = url.startsWith('#') ? url : '';
      },
    },
  });
  return win;
}

describe('the leave guard', () => {
  let win: ReturnType<typeof fakeWindow>;
  let router: typeof import('./use-route.ts');
  let changes: number;
  beforeEach(async () => {
    win = fakeWindow('#/agents/a');
    vi.stubGlobal('window', win);
    vi.resetModules();
    router = await import('./use-route.ts');
    changes = 0;
    router.subscribeToRoute(() => changes++);
  });
  afterEach(() => vi.unstubAllGlobals());

  const follow = (hash: string) => {
    win.location.hash = hash;
    win.dispatchEvent(new Event('hashchange'));
  };

  it('puts a refused link or back button change back before any screen changes', () => {
    const guard = vi.fn(() => false);
    router.setLeaveGuard(guard);
    follow('#/conversations');
    expect(guard).toHaveBeenCalledOnce();
    expect(win.location.hash).toBe('#/agents/a');
    expect(changes).toBe(0);
  });

  it('lets an allowed change through, and asks nothing once the guard is removed', () => {
    const remove = router.setLeaveGuard(() => true);
    follow('#/conversations');
    expect([win.location.hash, changes]).toEqual(['#/conversations', 1]);
    remove();
    follow('#/usage');
    expect([win.location.hash, changes]).toEqual(['#/usage', 2]);
  });

  it('asks before navigate() opens another screen, but not for a redirect of this one', () => {
    const guard = vi.fn(() => false);
    router.setLeaveGuard(guard);
    router.navigate({ name: 'conversations' });
    expect([win.location.hash, changes]).toEqual(['#/agents/a', 0]);
    router.navigate({ name: 'agent', id: 'a', tab: 'tools' }, true);
    expect(guard).toHaveBeenCalledOnce();
    expect([win.location.hash, changes]).toEqual(['#/agents/a/tools', 1]);
    // The browser's own hashchange for an accepted navigation asks nothing again.
    win.dispatchEvent(new Event('hashchange'));
    expect(guard).toHaveBeenCalledOnce();
  });

  it('an old guard uninstalled late does not remove the new one', () => {
    const removeOld = router.setLeaveGuard(() => true);
    router.setLeaveGuard(() => false);
    removeOld();
    follow('#/conversations');
    expect(win.location.hash).toBe('#/agents/a');
  });
});
