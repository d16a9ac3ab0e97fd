import { FINAL_RUN_STATUSES } from '@agentry/contract';
import type { EventSourceMessage } from 'eventsource-parser';
import { type Api, ApiError, type Bootstrap, createApi, readEventStream, type Transcript } from './api.ts';
import { highlight } from './highlight.ts';
import { pickLang, type Translate, translator } from './i18n.ts';
import { renderMarkdown } from './markdown.ts';
import { evalInSandbox } from './sandbox.ts';
import { css } from './styles.ts';

export interface WidgetOptions {
  apiBase: string;
  key: string;
  agentId: string;
  /** `data-lang`: `en` or `zh`; default the agent's language, then the browser's. */
  lang?: string | undefined;
}

export type ToolHandler = (args: unknown, info: { toolCallId: string; name: string }) => unknown;
export type WidgetEvent = 'ready' | 'open' | 'close' | 'message' | 'user-message' | 'tool-call' | 'error';
type Listener = (detail: unknown) => void;
export type ContextValue = string | number | boolean;

/** The page's `window.Agentry`. */
export interface AgentryApi {
  open(): void;
  close(): void;
  send(text: string): Promise<void>;
  setContext(values: Record<string, ContextValue>): void;
  identify(jwt: string | null): void;
  registerTool(name: string, handler: ToolHandler): void;
  on(event: WidgetEvent, callback: Listener): () => void;
  newConversation(): void;
}

interface PendingCall {
  tool_call_id: string;
  name: string;
  arguments: unknown;
  kind: 'client' | 'approval';
}

interface ToolAnswer {
  tool_call_id: string;
  output?: unknown;
  is_error?: boolean;
  decision?: 'approve' | 'decline';
}

interface Saved {
  conversationId?: string;
  runId?: string;
  lastEventId?: string;
}

interface Card {
  settle(text?: string): void;
}

const FINAL = new Set<string>(FINAL_RUN_STATUSES);
const BUILTIN_EVAL = 'browser_js_eval';
const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
const ICON_CHAT =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
const ICON_CLOSE =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6 10.6 12 5 6.4z"/></svg>';
const ICON_NEW =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 5V2L7 6l5 4V7a6 6 0 1 1-6 6H4a8 8 0 1 0 8-8z"/></svg>';
const ICON_SEND = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 20.5 21 12 3 3.5V10l12 2-12 2z"/></svg>';
const ICON_STOP = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 7h10v10H7z"/></svg>';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function onPrimary(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/([0-9a-f])/gi, '$1$1') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 ? '#111111' : '#ffffff';
}

function parseArgs(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? 'null' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const onOnline = () => done();
    function done() {
      clearTimeout(timer);
      removeEventListener('online', onOnline);
      resolve();
    }
    addEventListener('online', onOnline);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The chat widget: a launcher and a panel in a shadow root, a streaming run follower that
 * resumes after drops, and the cards of client tools and approvals.
 */
export class Widget {
  private readonly api: Api;
  private t: Translate;
  private readonly storageKey: string;
  private readonly host: HTMLElement;
  private readonly shadow: ShadowRoot;
  private readonly root: HTMLDivElement;
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly titleEl: HTMLHeadingElement;
  private readonly notice: HTMLDivElement;
  private readonly status: HTMLDivElement;
  private readonly log: HTMLDivElement;
  private readonly live: HTMLDivElement;
  private readonly suggestions: HTMLDivElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly newButton: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;

  private boot: Bootstrap | undefined;
  private booting: Promise<void> | undefined;
  private bootError: unknown;
  private restoring: Promise<void> | undefined;
  private saved: Saved;
  private busy = false;
  private follower: AbortController | undefined;
  private current: { el: HTMLElement; text: string; timer?: ReturnType<typeof setTimeout> } | undefined;
  private readonly cards = new Map<string, Card>();
  private readonly tools = new Map<string, ToolHandler>();
  private readonly listeners = new Map<WidgetEvent, Set<Listener>>();
  private context: Record<string, ContextValue> = {};
  private token: string | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private pinned = true;

  private readonly options: WidgetOptions;

  constructor(options: WidgetOptions) {
    this.options = options;
    this.api = createApi(options.apiBase, options.key, () => this.token);
    this.t = translator(pickLang(options.lang, navigator.language));
    this.storageKey = `agentry:${options.agentId}`;
    this.saved = this.load();

    this.host = el('div', { 'data-agentry-widget': '' });
    this.shadow = this.host.attachShadow({ mode: 'open' });
    const style = el('style');
    style.textContent = css;
    this.launcher = el('button', {
      type: 'button',
      class: 'launcher',
      'aria-expanded': 'false',
      'aria-controls': 'panel',
    });
    this.launcher.innerHTML = ICON_CHAT;
    this.titleEl = el('h2', { id: 'title' });
    this.newButton = el('button', { type: 'button', class: 'icon new' });
    this.newButton.innerHTML = ICON_NEW;
    this.closeButton = el('button', { type: 'button', class: 'icon close' });
    this.closeButton.innerHTML = ICON_CLOSE;
    this.notice = el('div', { class: 'notice', role: 'alert', hidden: '' });
    this.status = el('div', { class: 'status', role: 'status' });
    this.log = el('div', { class: 'log', role: 'log', 'aria-live': 'off', tabindex: '0' });
    this.live = el('div', { class: 'sr', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this.suggestions = el('div', { class: 'suggestions', role: 'group' });
    this.input = el('textarea', { id: 'input', rows: '1' });
    this.sendButton = el('button', { type: 'submit', class: 'send' });
    const label = el('label', { class: 'sr', for: 'input' });
    const form = el('form', {}, label, this.input, this.sendButton);
    this.panel = el(
      'section',
      { class: 'panel', id: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'title', hidden: '' },
      el('header', {}, this.titleEl, this.newButton, this.closeButton),
      this.notice,
      this.log,
      this.status,
      this.suggestions,
      form,
      this.live,
    );
    this.root = el('div', { class: 'root', lang: 'en' }, this.launcher, this.panel);
    this.shadow.append(style, this.root);
    this.label(label);
    this.theme({});

    this.launcher.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close()));
    this.closeButton.addEventListener('click', () => this.close());
    this.log.addEventListener('scroll', () => {
      this.pinned = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    });
    this.newButton.addEventListener('click', () => this.newConversation());
    this.panel.addEventListener('keydown', (e) => this.onKey(e));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (this.busy) void this.stop();
      else void this.send(this.input.value);
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        if (!this.busy) void this.send(this.input.value);
      }
    });
    this.input.addEventListener('input', () => {
      this.input.style.height = 'auto';
      this.input.style.height = `${Math.min(this.input.scrollHeight, 120)}px`;
    });
    void this.ensureBoot();
  }

  mount(): void {
    (document.body ?? document.documentElement).append(this.host);
  }

  // ---- public API -------------------------------------------------------------------------

  publicApi(): AgentryApi {
    return {
      open: () => this.open(),
      close: () => this.close(),
      send: (text) => this.send(text),
      setContext: (values) => this.setContext(values),
      identify: (jwt) => {
        this.token = jwt || undefined;
      },
      registerTool: (name, handler) => {
        if (name === BUILTIN_EVAL) {
          console.warn(`[agentry] ${BUILTIN_EVAL} is built in and always runs sandboxed; the handler is ignored`);
          return;
        }
        if (typeof handler !== 'function')
          throw new TypeError('registerTool(name, handler): handler must be a function');
        this.tools.set(name, handler);
      },
      on: (event, callback) => {
        const set = this.listeners.get(event) ?? new Set();
        set.add(callback);
        this.listeners.set(event, set);
        return () => set.delete(callback);
      },
      newConversation: () => this.newConversation(),
    };
  }

  open(): void {
    if (!this.panel.hidden) return;
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.launcher.setAttribute('aria-label', this.t('close'));
    this.input.focus();
    this.scroll(true);
    this.emit('open', undefined);
    void this.restore();
  }

  close(): void {
    if (this.panel.hidden) return;
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.setAttribute('aria-label', this.t('open'));
    this.launcher.focus();
    this.emit('close', undefined);
  }

  setContext(values: Record<string, ContextValue>): void {
    const declared = this.boot?.context_variables;
    for (const [name, value] of Object.entries(values ?? {})) {
      if (!['string', 'number', 'boolean'].includes(typeof value)) {
        console.warn(`[agentry] context variable ${name} must be a string, number or boolean; ignored`);
      } else if (declared && !declared.includes(name)) {
        console.warn(`[agentry] the agent declares no context variable ${name}; ignored`);
      } else this.context[name] = value;
    }
  }

  async send(raw: string): Promise<void> {
    const text = String(raw ?? '').trim();
    if (!text) return;
    this.open();
    await this.restore();
    if (this.busy) {
      this.setStatus(this.t('errBusy'));
      return;
    }
    if (!(await this.ensureBoot())) return;
    this.input.value = '';
    this.input.style.height = '';
    this.hideNotice();
    this.suggestions.replaceChildren();
    this.addUser(text);
    this.emit('user-message', { text });
    this.setBusy(true);
    const controller = new AbortController();
    this.follower?.abort();
    this.follower = controller;
    try {
      if (!this.saved.conversationId) await this.createConversation();
      let res: Response;
      try {
        res = await this.postMessage(text, controller.signal);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'conversation_not_found')) throw error;
        this.saved = {};
        await this.createConversation();
        res = await this.postMessage(text, controller.signal);
      }
      const runId = res.headers.get('location')?.split('/').pop() || undefined;
      this.saved = { ...this.saved, lastEventId: undefined, runId };
      this.save();
      await this.follow(res, runId, controller);
    } catch (error) {
      if (controller.signal.aborted) return;
      this.fail(error);
      this.setBusy(false);
    }
  }

  newConversation(): void {
    const runId = this.busy ? this.saved.runId : undefined;
    if (runId) void this.api.request('POST', `/v1/runs/${runId}/cancel`).catch(() => {});
    this.follower?.abort();
    this.follower = undefined;
    this.current = undefined;
    this.cards.clear();
    this.saved = {};
    this.save();
    this.log.replaceChildren();
    this.hideNotice();
    this.setStatus('');
    this.setBusy(false);
    this.intro(false);
    this.input.focus();
  }

  // ---- boot, theme, restore ---------------------------------------------------------------

  /** Loads the agent's widget settings once; retried on the next call after a failure. */
  private async ensureBoot(): Promise<boolean> {
    if (this.boot) return true;
    this.booting ??= this.api
      .json<Bootstrap>('GET', `/v1/widget/bootstrap?agent_id=${encodeURIComponent(this.options.agentId)}`)
      .then((boot) => {
        this.boot = boot;
        this.bootError = undefined;
        this.t = translator(pickLang(this.options.lang, boot.language, navigator.language));
        this.label();
        this.theme(boot.widget ?? {});
        this.emit('ready', undefined);
      })
      .catch((error: unknown) => {
        this.bootError = error;
        this.booting = undefined;
      });
    await this.booting;
    if (!this.boot) {
      this.fail(this.bootError);
      return false;
    }
    return true;
  }

  private label(inputLabel?: HTMLLabelElement): void {
    const t = this.t;
    const lang = t('send') === 'Send' ? 'en' : 'zh';
    this.root.setAttribute('lang', lang === 'zh' ? 'zh-CN' : 'en');
    this.launcher.setAttribute('aria-label', this.panel.hidden ? t('open') : t('close'));
    this.newButton.setAttribute('aria-label', t('newConversation'));
    this.newButton.title = t('newConversation');
    this.closeButton.setAttribute('aria-label', t('close'));
    this.log.setAttribute('aria-label', t('messages'));
    this.suggestions.setAttribute('aria-label', t('suggestions'));
    this.input.placeholder = t('placeholder');
    const label = inputLabel ?? this.panel.querySelector('label');
    if (label) label.textContent = t('inputLabel');
    this.setBusy(this.busy);
  }

  private theme(widget: Bootstrap['widget']): void {
    const color = (value: string | undefined, fallback: string) => (value && HEX.test(value) ? value : fallback);
    const primary = color(widget.colors?.primary, '#2563eb');
    const style = this.root.style;
    style.setProperty('--primary', primary);
    style.setProperty('--on-primary', onPrimary(primary));
    style.setProperty('--bg', color(widget.colors?.background, '#ffffff'));
    style.setProperty('--text', color(widget.colors?.text, '#1f2937'));
    style.setProperty('--bubble', 'color-mix(in srgb, var(--text) 8%, var(--bg))');
    style.setProperty('--link', 'color-mix(in srgb, var(--primary) 75%, var(--text))');
    this.root.classList.toggle('left', widget.position === 'bottom-left');
    this.titleEl.textContent = widget.title || this.t('title');
  }

  private restore(): Promise<void> {
    this.restoring ??= this.restoreNow().catch((error: unknown) => this.fail(error));
    return this.restoring;
  }

  private async restoreNow(): Promise<void> {
    if (!(await this.ensureBoot())) {
      this.restoring = undefined; // try again on the next open
      return;
    }
    const { conversationId, runId } = this.saved;
    if (!conversationId) {
      this.intro(false);
      return;
    }
    let transcript: Transcript;
    try {
      transcript = await this.api.json<Transcript>('GET', `/v1/conversations/${conversationId}`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        this.saved = {};
        this.save();
        this.intro(false);
        return;
      }
      this.restoring = undefined;
      throw error;
    }
    let active: string | undefined;
    if (runId) {
      const run = await this.api.json<{ status: string }>('GET', `/v1/runs/${runId}`).catch(() => undefined);
      if (run && !FINAL.has(run.status)) active = runId;
    }
    this.log.replaceChildren();
    this.intro(transcript.messages.some((m) => m.role === 'user'));
    for (const message of transcript.messages) {
      // An active run is replayed from its first event below, so its stored part is skipped here.
      if (active && message.run_id === active && message.role !== 'user') continue;
      this.addStored(message);
    }
    this.scroll(true);
    if (active) {
      this.saved.lastEventId = undefined;
      this.setBusy(true);
      void this.follow(undefined, active).catch((error: unknown) => this.fail(error));
    }
  }

  private intro(hasMessages: boolean): void {
    const widget = this.boot?.widget ?? {};
    if (!this.log.querySelector('.greeting')) {
      const greeting = this.addAssistant(widget.greeting || this.t('greeting'));
      greeting.classList.add('greeting');
      this.log.prepend(greeting);
    }
    this.suggestions.replaceChildren();
    if (hasMessages) return;
    for (const question of widget.suggested_questions ?? []) {
      const button = el('button', { type: 'button' }, question);
      button.addEventListener('click', () => void this.send(question));
      this.suggestions.append(button);
    }
  }

  private addStored(message: Transcript['messages'][number]): void {
    const text = message.content
      .filter((p) => p.type === 'text')
      .map((p) => p.text ?? '')
      .join('');
    if (message.role === 'user') {
      if (text) this.addUser(text);
    } else if (message.role === 'assistant') {
      if (text.trim()) this.addAssistant(text);
      for (const part of message.content)
        if (part.type === 'tool_call' && part.name) this.addChip(this.t('toolUsed', { name: part.name }));
    }
  }

  // ---- sending and following a run --------------------------------------------------------

  private async createConversation(): Promise<void> {
    const declared = this.boot?.context_variables ?? [];
    const context = Object.fromEntries(Object.entries(this.context).filter(([name]) => declared.includes(name)));
    const conversation = await this.api.json<{ id: string }>('POST', '/v1/conversations', {
      agent_id: this.options.agentId,
      ...(Object.keys(context).length ? { context } : {}),
    });
    this.saved = { conversationId: conversation.id };
    this.save();
  }

  private postMessage(text: string, signal: AbortSignal): Promise<Response> {
    return this.api.request(
      'POST',
      `/v1/conversations/${this.saved.conversationId}/messages`,
      { content: text },
      { accept: 'text/event-stream', signal },
    );
  }

  /** The run of the conversation's latest message (when the stream's response did not say). */
  private async resolveRunId(): Promise<string> {
    if (this.saved.runId) return this.saved.runId;
    const transcript = await this.api.json<Transcript>('GET', `/v1/conversations/${this.saved.conversationId}`);
    const runId = transcript.messages.findLast((m) => m.role === 'user')?.run_id ?? undefined;
    if (!runId) throw new ApiError('http', 404, 'run_not_found', 'No run for this conversation');
    this.saved.runId = runId;
    this.save();
    return runId;
  }

  /**
   * Reads a run's events until its final status. When the connection drops it reconnects to
   * `GET /v1/runs/{id}/events?after=<last event id>` with backoff, so no text is lost or repeated.
   */
  private async follow(
    first: Response | undefined,
    runId: string | undefined,
    controller = new AbortController(),
  ): Promise<void> {
    if (this.follower !== controller) this.follower?.abort();
    this.follower = controller;
    const { signal } = controller;
    let res = first;
    let attempt = 0;
    this.setBusy(true);
    for (;;) {
      let final = false;
      try {
        if (!res) {
          const id = runId ?? (await this.resolveRunId());
          runId = id;
          const after = this.saved.lastEventId;
          res = await this.api.request(
            'GET',
            `/v1/runs/${id}/events${after ? `?after=${encodeURIComponent(after)}` : ''}`,
            undefined,
            { accept: 'text/event-stream', signal },
          );
        }
        await readEventStream(res, (event) => {
          if (signal.aborted) return;
          if (attempt > 0) {
            attempt = 0;
            this.setStatus('');
          }
          if (this.onRunEvent(event)) final = true;
        });
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && error.kind === 'http' && error.status !== 429 && error.status < 500) {
          this.endRun();
          this.fail(error);
          return;
        }
      }
      res = undefined;
      if (signal.aborted) return;
      if (final) {
        this.endRun();
        return;
      }
      attempt++;
      this.setStatus(navigator.onLine ? this.t('reconnecting') : this.t('offline'));
      await sleep(Math.min(500 * 2 ** (attempt - 1), 8000), signal);
      if (signal.aborted) return;
    }
  }

  private endRun(): void {
    this.finishBubble();
    for (const card of this.cards.values()) card.settle();
    this.cards.clear();
    this.setStatus('');
    this.follower = undefined;
    this.saved = { conversationId: this.saved.conversationId };
    this.save();
    this.setBusy(false);
  }

  /** Applies one run event; true for the final one. */
  private onRunEvent(event: EventSourceMessage): boolean {
    if (event.id) {
      this.saved.lastEventId = event.id;
      this.saveSoon();
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data);
    } catch {
      return false;
    }
    switch (data.type ?? event.event) {
      case 'text-delta':
        this.appendDelta(String(data.delta ?? ''));
        break;
      case 'tool-call':
        this.finishBubble();
        this.emit('tool-call', data.toolCall);
        break;
      case 'tool-result': {
        const id = String(data.toolCallId ?? data.tool_call_id ?? '');
        const card = this.cards.get(id);
        if (card) card.settle();
        else if (typeof data.toolName === 'string') this.addChip(this.t('toolUsed', { name: data.toolName }));
        break;
      }
      case 'waiting':
        this.finishBubble();
        this.showPending(Array.isArray(data.pending) ? (data.pending as PendingCall[]) : []);
        break;
      case 'run-status':
        // The run moved on (queued/running after the answers): its open cards were answered.
        if (data.status !== 'waiting') for (const card of this.cards.values()) card.settle();
        if (data.final !== true) break;
        this.finishBubble();
        if (data.status === 'cancelled') this.addChip(this.t('stopped'));
        else if (data.status !== 'completed') this.addError(this.t('errFailed'));
        return true;
    }
    return false;
  }

  private async stop(): Promise<void> {
    const runId = this.saved.runId ?? (await this.resolveRunId().catch(() => undefined));
    if (runId) await this.api.request('POST', `/v1/runs/${runId}/cancel`).catch((error: unknown) => this.fail(error));
  }

  // ---- client tools and approvals ---------------------------------------------------------

  private showPending(pending: PendingCall[]): void {
    const answers = new Map<string, ToolAnswer>();
    const group: Array<{ enable(): void }> = [];
    const submit = async () => {
      try {
        const runId = await this.resolveRunId();
        await this.api.request('POST', `/v1/runs/${runId}/tool-results`, { results: [...answers.values()] });
      } catch (error) {
        answers.clear();
        for (const card of group) card.enable();
        this.fail(error);
      }
    };
    for (const call of pending) {
      if (this.cards.has(call.tool_call_id)) continue;
      const args = parseArgs(call.arguments);
      const approval = call.kind === 'approval';
      const title = el('h3', {}, this.t(approval ? 'approveTitle' : 'runTitle', { name: call.name }));
      const code = el('code');
      const source =
        args && typeof args === 'object' && typeof (args as { code?: unknown }).code === 'string'
          ? (args as { code: string }).code
          : (JSON.stringify(args, null, 2) ?? 'null');
      highlight(source, code);
      const yes = el('button', { type: 'button', class: 'btn primary' }, this.t(approval ? 'approve' : 'run'));
      const no = el('button', { type: 'button', class: 'btn' }, this.t('decline'));
      const outcome = el('div', { class: 'outcome', 'aria-live': 'polite' });
      const card = el(
        'div',
        { class: 'card', role: 'group', 'data-tool': call.name, 'data-kind': call.kind },
        title,
        el('pre', { tabindex: '0' }, code),
        el('div', { class: 'actions' }, yes, no),
        outcome,
      );
      card.setAttribute('aria-label', title.textContent ?? '');
      const setEnabled = (on: boolean) => {
        yes.disabled = !on;
        no.disabled = !on;
      };
      group.push({ enable: () => setEnabled(true) });
      this.cards.set(call.tool_call_id, {
        settle: (text) => {
          setEnabled(false);
          if (text || !outcome.textContent) outcome.textContent = text ?? this.t('answered');
        },
      });
      const answer = async (accept: boolean) => {
        setEnabled(false);
        let result: ToolAnswer;
        if (approval) {
          result = { tool_call_id: call.tool_call_id, decision: accept ? 'approve' : 'decline' };
          outcome.textContent = this.t(accept ? 'approved' : 'declined');
        } else if (!accept) {
          result = { tool_call_id: call.tool_call_id, is_error: true, output: 'The user declined to run this tool.' };
          outcome.textContent = this.t('declined');
        } else {
          outcome.textContent = this.t('running');
          result = { tool_call_id: call.tool_call_id, ...(await this.runClientTool(call, args)) };
          outcome.textContent = this.t(result.is_error ? 'failed' : 'result', { value: short(result.output) });
        }
        answers.set(call.tool_call_id, result);
        if (answers.size === pending.length) await submit();
      };
      yes.addEventListener('click', () => void answer(true));
      no.addEventListener('click', () => void answer(false));
      this.log.append(card);
    }
    this.scroll(true);
    const first = this.log.querySelector<HTMLButtonElement>('.card button:not([disabled])');
    if (!this.panel.hidden) first?.focus();
  }

  private async runClientTool(call: PendingCall, args: unknown): Promise<{ output: unknown; is_error?: boolean }> {
    try {
      if (call.name === BUILTIN_EVAL && this.boot?.widget.browser_js_eval === true) {
        const code = (args as { code?: unknown } | null)?.code;
        if (typeof code !== 'string')
          return { output: 'browser_js_eval needs a string `code` argument', is_error: true };
        const result = await evalInSandbox(code, this.shadow);
        return result.ok ? { output: result.value ?? null } : { output: result.error ?? 'error', is_error: true };
      }
      const handler = this.tools.get(call.name);
      if (!handler) return { output: `The page has no handler for the tool ${call.name}.`, is_error: true };
      const value = await handler(args, { toolCallId: call.tool_call_id, name: call.name });
      return { output: value === undefined ? null : value };
    } catch (error) {
      return { output: error instanceof Error ? error.message : String(error), is_error: true };
    }
  }

  // ---- rendering --------------------------------------------------------------------------

  private markdown(text: string): DocumentFragment {
    return renderMarkdown(text, { loadImageLabel: (host) => this.t('loadImage', { host }) });
  }

  private addUser(text: string): void {
    this.log.append(el('div', { class: 'msg user' }, el('span', { class: 'sr' }, `${this.t('you')}: `), text));
    this.scroll(true);
  }

  private addAssistant(text: string): HTMLElement {
    const bubble = el('div', { class: 'msg assistant' });
    bubble.append(this.markdown(text));
    this.log.append(bubble);
    return bubble;
  }

  private addChip(text: string): void {
    this.log.append(el('div', { class: 'chip' }, text));
    this.scroll();
  }

  private addError(text: string): void {
    this.log.append(el('div', { class: 'error', role: 'alert' }, text));
    this.scroll();
  }

  private appendDelta(delta: string): void {
    if (!delta) return;
    if (!this.current) {
      const bubble = el('div', { class: 'msg assistant streaming', 'aria-busy': 'true' });
      this.log.append(bubble);
      this.current = { el: bubble, text: '' };
    }
    const current = this.current;
    current.text += delta;
    // Re-rendering the whole markdown is cheap for chat-sized replies; throttled to ~30 fps.
    current.timer ??= setTimeout(() => {
      current.timer = undefined;
      current.el.replaceChildren(this.markdown(current.text));
      this.scroll();
    }, 33);
  }

  private finishBubble(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    current.el.replaceChildren(this.markdown(current.text));
    current.el.classList.remove('streaming');
    current.el.removeAttribute('aria-busy');
    this.live.textContent = current.el.textContent ?? '';
    this.emit('message', { text: current.text });
    this.scroll();
  }

  /** Keeps the newest message in view, unless the visitor scrolled up to read. */
  private scroll(force = false): void {
    if (force || this.pinned) this.log.scrollTop = this.log.scrollHeight;
  }

  private setStatus(text: string): void {
    this.status.textContent = text;
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.innerHTML = busy ? ICON_STOP : ICON_SEND;
    this.sendButton.setAttribute('aria-label', this.t(busy ? 'stop' : 'send'));
    this.log.setAttribute('aria-busy', String(busy));
  }

  private hideNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  /** A friendly message for any failure; never a blank panel. */
  private fail(error: unknown): void {
    const t = this.t;
    let lines: string[];
    const code = error instanceof ApiError ? error.code : 'error';
    if (!(error instanceof ApiError)) lines = [t('errFailed')];
    else if (error.kind === 'network') lines = [navigator.onLine ? t('errNetwork') : t('offline')];
    else if (code === 'origin_not_allowed') lines = [t('errOrigin'), t('errOriginHint', { origin: location.origin })];
    else if (code === 'rate_limited') lines = [t('errRate', { seconds: error.retryAfterSeconds ?? 60 })];
    else if (code === 'conversation_busy') lines = [t('errBusy')];
    else if (['unauthorized', 'forbidden', 'agent_not_found', 'agent_not_published', 'invalid_context'].includes(code))
      lines = [t('errConfig')];
    else if (error.status === 429 || error.status >= 500) lines = [t('errUnavailable')];
    else lines = [t('errFailed')];
    if (error instanceof ApiError && error.kind === 'http') console.warn(`[agentry] ${error.code}: ${error.message}`);
    this.notice.replaceChildren(...lines.map((line) => el('p', {}, line)));
    this.notice.hidden = false;
    this.notice.dataset.code = code;
    this.emit('error', { code, message: error instanceof Error ? error.message : String(error) });
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab') return;
    const items = Array.from(
      this.panel.querySelectorAll<HTMLElement>(
        'button:not([disabled]),textarea:not([disabled]),a[href],[tabindex]:not([tabindex="-1"])',
      ),
    ).filter((item) => item.getClientRects().length > 0);
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    const active = this.shadow.activeElement;
    if (e.shiftKey && (active === first || !this.panel.contains(active))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (active === last || !this.panel.contains(active))) {
      e.preventDefault();
      first.focus();
    }
  }

  private emit(event: WidgetEvent, detail: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        listener(detail);
      } catch (error) {
        console.error(error);
      }
    }
  }

  // ---- storage ----------------------------------------------------------------------------

  private load(): Saved {
    try {
      const value = JSON.parse(localStorage.getItem(this.storageKey) ?? '{}');
      return value && typeof value === 'object' ? (value as Saved) : {};
    } catch {
      return {};
    }
  }

  private save(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    try {
      if (this.saved.conversationId) localStorage.setItem(this.storageKey, JSON.stringify(this.saved));
      else localStorage.removeItem(this.storageKey);
    } catch {}
  }

  private saveSoon(): void {
    this.saveTimer ??= setTimeout(() => this.save(), 250);
  }
}
