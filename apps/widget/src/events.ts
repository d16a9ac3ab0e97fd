export type WidgetEvent = 'ready' | 'open' | 'close' | 'message' | 'user-message' | 'tool-call' | 'error';
export type Listener = (detail: unknown) => void;

/** The page's `Agentry.on(…)` subscriptions. */
export class Emitter {
  private readonly listeners = new Map<WidgetEvent, Set<Listener>>();

  /** Subscribes; returns the unsubscribe function. */
  on(event: WidgetEvent, callback: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(callback);
    this.listeners.set(event, set);
    return () => set.delete(callback);
  }

  /** Calls every listener; one that throws is logged so it cannot break the widget or the others. */
  emit(event: WidgetEvent, detail: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(detail);
      } catch (error) {
        console.error(error);
      }
    }
  }
}
