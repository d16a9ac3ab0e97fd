/**
 * The embeddable chat widget:
 *
 *   <script src="https://api.example.com/widget.js" data-key="pk_…" data-agent="<agent id>" async></script>
 *
 * The API is the script's own origin (`data-api` overrides it). `data-lang` (`en`, `zh`) picks the
 * language. Calls made before the script loaded can be queued as `window.Agentry = { q: [['open']] }`.
 */
import { type AgentryApi, Widget } from './widget.ts';

declare global {
  interface Window {
    Agentry?: AgentryApi | { q?: unknown[][] };
  }
}

// Read while the script runs: currentScript is null afterwards (async scripts included).
const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-key][data-agent]');

function start(): void {
  if (!script?.dataset.key || !script.dataset.agent) {
    console.error('[agentry] the widget script tag needs data-key="pk_…" and data-agent="<agent id>"');
    return;
  }
  const widget = new Widget({
    apiBase: script.dataset.api ?? new URL(script.src, location.href).origin,
    key: script.dataset.key,
    agentId: script.dataset.agent,
    lang: script.dataset.lang,
  });
  widget.mount();
  const api = widget.publicApi();
  const queued = (window.Agentry as { q?: unknown[][] } | undefined)?.q ?? [];
  window.Agentry = api;
  for (const [method, ...args] of queued) {
    const fn = (api as unknown as Record<string, (...a: unknown[]) => unknown>)[String(method)];
    if (typeof fn === 'function') fn(...args);
  }
  dispatchEvent(new CustomEvent('agentry:ready'));
}

if (document.body) start();
else document.addEventListener('DOMContentLoaded', start, { once: true });
