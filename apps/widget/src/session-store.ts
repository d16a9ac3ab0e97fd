/** What survives a reload: the conversation, its active run and the last event id seen of it. */
export interface SavedSession {
  conversationId?: string;
  runId?: string;
  lastEventId?: string;
}

/**
 * The visitor's session with one agent: the persisted part in `localStorage["agentry:<agent id>"]`
 * and the end-user token set by `identify()`, which is kept in memory only (it is the page's to
 * re-send after a reload).
 */
export class SessionStore {
  /** The current state; callers mutate it and then call `save()` or `saveSoon()`. */
  state: SavedSession;
  /** `X-End-User-Token` for every request; undefined sends none. */
  endUserToken: string | undefined;
  private readonly key: string;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(agentId: string) {
    this.key = `agentry:${agentId}`;
    this.state = this.load();
  }

  /** Replaces the whole state and persists it at once. */
  reset(state: SavedSession): void {
    this.state = state;
    this.save();
  }

  /** Persists now; a session without a conversation is removed rather than stored empty. */
  save(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      if (this.state.conversationId) localStorage.setItem(this.key, JSON.stringify(this.state));
      else localStorage.removeItem(this.key);
    } catch {} // storage may be disabled or full: the session then lasts as long as the page
  }

  /** Persists within 250 ms: event ids arrive per token, too often to write each one. */
  saveSoon(): void {
    this.timer ??= setTimeout(() => this.save(), 250);
  }

  private load(): SavedSession {
    try {
      const value = JSON.parse(localStorage.getItem(this.key) ?? '{}');
      return value && typeof value === 'object' ? (value as SavedSession) : {};
    } catch {
      return {};
    }
  }
}
