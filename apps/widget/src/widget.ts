import { ProblemError } from '@agentry/contract';
import type {
  Citation,
  Conversation,
  ConversationDetail,
  NewConversationBody,
  NewMessageBody,
  PendingInput,
  Run,
  ToolResultsBody,
  WidgetBootstrap,
  WidgetSettings,
} from '@agentry/contract/schemas';
import type { EventSourceMessage } from 'eventsource-parser';
import { type Api, createApi } from './api.ts';
import { ClientTools, type ToolHandler } from './client-tools.ts';
import { Emitter, type Listener, type WidgetEvent } from './events.ts';
import { describeFailure } from './failure.ts';
import { pickLang, type Translate, translator } from './i18n.ts';
import { FINAL_STATUSES, followRun } from './run-follower.ts';
import { SessionStore } from './session-store.ts';
import { buildPendingCards, type Card } from './tool-cards.ts';
import { WidgetView } from './view.ts';

export type { ToolHandler } from './client-tools.ts';
export type { WidgetEvent } from './events.ts';

export interface WidgetOptions {
  apiBase: string;
  key: string;
  agentId: string;
  /** `data-lang`: `en` or `zh`; default the agent's language, then the browser's. */
  lang?: string | undefined;
}

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

/**
 * The chat widget: ties the view (launcher and panel in a shadow root), the session store, the
 * run follower (streaming that resumes after drops) and the cards of client tools and approvals
 * to the conversation's lifecycle: boot, restore after a reload, send, stop, new conversation.
 */
export class Widget {
  private readonly options: WidgetOptions;
  private readonly api: Api;
  private readonly session: SessionStore;
  private readonly view: WidgetView;
  private readonly events = new Emitter();
  private readonly tools = new ClientTools();
  /** Open tool cards of the current run, by tool call id. */
  private readonly cards = new Map<string, Card>();
  private boot: WidgetBootstrap | undefined;
  private booting: Promise<void> | undefined;
  private bootError: unknown;
  private restoring: Promise<void> | undefined;
  private follower: AbortController | undefined;
  private context: Record<string, ContextValue> = {};
  /** The buttons a flow offered during the current run, shown once it ends. */
  private offered: string[] = [];

  constructor(options: WidgetOptions) {
    this.options = options;
    this.session = new SessionStore(options.agentId);
    this.api = createApi(options.apiBase, options.key, () => this.session.endUserToken);
    this.view = new WidgetView(translator(pickLang(options.lang, navigator.language)), {
      toggle: () => (this.view.isOpen ? this.close() : this.open()),
      close: () => this.close(),
      newConversation: () => this.newConversation(),
      submit: (enter) => {
        if (!this.view.busy) void this.send(this.view.input.value);
        else if (!enter) void this.stop();
      },
      message: (text) => this.events.emit('message', { text }),
    });
    void this.ensureBoot();
  }

  private get t(): Translate {
    return this.view.t;
  }

  mount(): void {
    (document.body ?? document.documentElement).append(this.view.host);
  }

  // ---- public API -------------------------------------------------------------------------

  /** The object the page gets as `window.Agentry`. */
  publicApi(): AgentryApi {
    return {
      open: () => this.open(),
      close: () => this.close(),
      send: (text) => this.send(text),
      setContext: (values) => this.setContext(values),
      identify: (jwt) => {
        this.session.endUserToken = jwt || undefined;
      },
      registerTool: (name, handler) => this.tools.register(name, handler),
      on: (event, callback) => this.events.on(event, callback),
      newConversation: () => this.newConversation(),
    };
  }

  open(): void {
    if (this.view.isOpen) return;
    this.view.show();
    this.events.emit('open', undefined);
    void this.restore();
  }

  close(): void {
    if (!this.view.isOpen) return;
    this.view.hide();
    this.events.emit('close', undefined);
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
    if (this.view.busy) {
      this.view.setStatus(this.t('errBusy'));
      return;
    }
    if (!(await this.ensureBoot())) return;
    const view = this.view;
    view.clearInput();
    view.hideNotice();
    view.suggest([], () => {});
    this.showQuickReplies([]);
    view.addUser(text);
    this.events.emit('user-message', { text });
    view.setBusy(true);
    const controller = new AbortController();
    this.follower?.abort();
    this.follower = controller;
    try {
      const res = await this.post(text, controller.signal);
      const runId = res.headers.get('location')?.split('/').pop() || undefined;
      this.session.reset({ ...this.session.state, lastEventId: undefined, runId });
      await this.follow(res, runId, controller);
    } catch (error) {
      if (controller.signal.aborted) return;
      this.fail(error);
      view.setBusy(false);
    }
  }

  newConversation(): void {
    const runId = this.view.busy ? this.session.state.runId : undefined;
    if (runId) void this.api.request('POST', `/v1/runs/${runId}/cancel`).catch(() => {});
    this.follower?.abort();
    this.follower = undefined;
    this.cards.clear();
    this.session.reset({});
    this.offered = [];
    this.view.clearLog();
    this.view.hideNotice();
    this.view.setStatus('');
    this.view.setBusy(false);
    this.intro(false);
    this.view.input.focus();
  }

  // ---- boot and restore -------------------------------------------------------------------

  /** Loads the agent's widget settings once; retried on the next call after a failure. */
  private async ensureBoot(): Promise<boolean> {
    if (this.boot) return true;
    this.booting ??= this.api
      .json<WidgetBootstrap>('GET', `/v1/widget/bootstrap?agent_id=${encodeURIComponent(this.options.agentId)}`)
      .then((boot) => {
        this.boot = boot;
        this.bootError = undefined;
        this.view.t = translator(pickLang(this.options.lang, boot.language, navigator.language));
        this.view.label();
        this.view.theme(boot.widget ?? {});
        this.events.emit('ready', undefined);
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

  /** Shows the saved conversation once per page (again after a failed attempt). */
  private restore(): Promise<void> {
    this.restoring ??= this.restoreNow().catch((error: unknown) => this.fail(error));
    return this.restoring;
  }

  private async restoreNow(): Promise<void> {
    if (!(await this.ensureBoot())) {
      this.restoring = undefined; // try again on the next open
      return;
    }
    const { conversationId, runId } = this.session.state;
    if (!conversationId) {
      this.intro(false);
      return;
    }
    let transcript: ConversationDetail;
    try {
      transcript = await this.api.json<ConversationDetail>('GET', `/v1/conversations/${conversationId}`);
    } catch (error) {
      if (error instanceof ProblemError && error.status === 404) {
        this.session.reset({});
        this.intro(false);
        return;
      }
      this.restoring = undefined;
      throw error;
    }
    let active: string | undefined;
    if (runId) {
      const run = await this.api.json<Run>('GET', `/v1/runs/${runId}`).catch(() => undefined);
      if (run && !FINAL_STATUSES.has(run.status)) active = runId;
    }
    this.view.clearLog();
    this.intro(transcript.messages.some((m) => m.role === 'user'));
    for (const message of transcript.messages) {
      // An active run is replayed from its first event below, so its stored part is skipped here.
      if (active && message.run_id === active && message.role !== 'user') continue;
      this.view.addStored(message);
    }
    if (!active) this.showQuickReplies(transcript.quick_replies ?? []);
    this.view.scroll(true);
    if (active) {
      this.session.state.lastEventId = undefined;
      this.view.setBusy(true);
      void this.follow(undefined, active).catch((error: unknown) => this.fail(error));
    }
  }

  /** The greeting, and the suggested questions while the conversation has no message yet. */
  private intro(hasMessages: boolean): void {
    const widget: Partial<WidgetSettings> = this.boot?.widget ?? {};
    this.view.greet(widget.greeting || this.t('greeting'));
    this.view.suggest(hasMessages ? [] : (widget.suggested_questions ?? []), (question) => void this.send(question));
  }

  // ---- sending and following a run --------------------------------------------------------

  /** Posts the message, starting a conversation first (again when the saved one is gone). */
  private async post(text: string, signal: AbortSignal): Promise<Response> {
    if (!this.session.state.conversationId) await this.createConversation();
    try {
      return await this.postMessage(text, signal);
    } catch (error) {
      if (!(error instanceof ProblemError && error.code === 'conversation_not_found')) throw error;
      this.session.state = {};
      await this.createConversation();
      return this.postMessage(text, signal);
    }
  }

  private async createConversation(): Promise<void> {
    // Only declared names are sent: the API rejects the others with invalid_context.
    const declared = this.boot?.context_variables ?? [];
    const context = Object.fromEntries(Object.entries(this.context).filter(([name]) => declared.includes(name)));
    const conversation = await this.api.json<Conversation>('POST', '/v1/conversations', {
      agent_id: this.options.agentId,
      ...(Object.keys(context).length ? { context } : {}),
    } satisfies NewConversationBody);
    this.session.reset({ conversationId: conversation.id });
  }

  private postMessage(text: string, signal: AbortSignal): Promise<Response> {
    return this.api.request(
      'POST',
      `/v1/conversations/${this.session.state.conversationId}/messages`,
      { content: text } satisfies NewMessageBody,
      { accept: 'text/event-stream', signal },
    );
  }

  /** The run of the conversation's latest message (when the stream's response did not say). */
  private async resolveRunId(): Promise<string> {
    const state = this.session.state;
    if (state.runId) return state.runId;
    const transcript = await this.api.json<ConversationDetail>('GET', `/v1/conversations/${state.conversationId}`);
    const runId = transcript.messages.findLast((m) => m.role === 'user')?.run_id ?? undefined;
    if (!runId)
      throw new ProblemError({
        title: 'No run',
        status: 404,
        detail: 'No run for this conversation',
        code: 'run_not_found',
      });
    this.session.state.runId = runId;
    this.session.save();
    return runId;
  }

  /** Follows a run until it ends; a newer follower (a new send, a new conversation) stops this one. */
  private follow(
    first: Response | undefined,
    runId: string | undefined,
    controller = new AbortController(),
  ): Promise<void> {
    if (this.follower !== controller) this.follower?.abort();
    this.follower = controller;
    this.view.setBusy(true);
    return followRun(this.api, first, runId, controller.signal, {
      onEvent: (event) => this.onRunEvent(event),
      resolveRunId: () => this.resolveRunId(),
      lastEventId: () => this.session.state.lastEventId,
      onRetry: () => this.view.setStatus(navigator.onLine ? this.t('reconnecting') : this.t('offline')),
      onResumed: () => this.view.setStatus(''),
      onEnd: (error) => {
        this.endRun();
        if (error) this.fail(error);
      },
    });
  }

  private endRun(): void {
    this.view.finishBubble();
    this.showQuickReplies(this.offered);
    this.settleCards();
    this.cards.clear();
    this.view.setStatus('');
    this.follower = undefined;
    this.session.reset({ conversationId: this.session.state.conversationId });
    this.view.setBusy(false);
  }

  /** A flow's answer buttons under the last message; clicking one sends it as the visitor's message. */
  private showQuickReplies(labels: readonly string[]): void {
    this.offered = [];
    this.view.quickReplies(labels, (label) => void this.send(label));
  }

  private settleCards(): void {
    for (const card of this.cards.values()) card.settle();
  }

  /** Applies one run event; true for the final one. */
  private onRunEvent(event: EventSourceMessage): boolean {
    if (event.id) {
      this.session.state.lastEventId = event.id;
      this.session.saveSoon();
    }
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data);
    } catch {
      return false;
    }
    const view = this.view;
    switch (data.type ?? event.event) {
      case 'text-delta':
        view.appendDelta(String(data.delta ?? ''));
        break;
      case 'tool-call':
        view.finishBubble();
        this.events.emit('tool-call', data.toolCall);
        break;
      case 'tool-result': {
        const card = this.cards.get(String(data.toolCallId ?? data.tool_call_id ?? ''));
        if (card) card.settle();
        else if (typeof data.toolName === 'string') view.addChip(this.t('toolUsed', { name: data.toolName }));
        break;
      }
      case 'citations':
        // Sent once the answer's text is complete: its sources go under it.
        view.finishBubble();
        view.addSources(Array.isArray(data.citations) ? (data.citations as Citation[]) : []);
        break;
      case 'flow':
        // The latest flow question's buttons (none when it asks for free text).
        this.offered = Array.isArray(data.quickReplies) ? data.quickReplies.map(String) : [];
        break;
      case 'waiting':
        view.finishBubble();
        this.showPending(Array.isArray(data.pending) ? (data.pending as PendingInput[]) : []);
        break;
      case 'run-status':
        // The run moved on (queued/running after the answers): its open cards were answered.
        if (data.status !== 'waiting') this.settleCards();
        if (data.final !== true) break;
        view.finishBubble();
        if (data.status === 'cancelled') view.addChip(this.t('stopped'));
        else if (data.status !== 'completed') view.addError(this.t('errFailed'));
        return true;
    }
    return false;
  }

  private async stop(): Promise<void> {
    const runId = this.session.state.runId ?? (await this.resolveRunId().catch(() => undefined));
    if (runId) await this.api.request('POST', `/v1/runs/${runId}/cancel`).catch((error: unknown) => this.fail(error));
  }

  private showPending(pending: PendingInput[]): void {
    const cards = buildPendingCards(pending, {
      t: (key, vars) => this.t(key, vars),
      cards: this.cards,
      run: (call, args) => this.tools.run(call, args, this.view.shadow, this.boot?.widget.browser_js_eval === true),
      submit: async (results) => {
        const runId = await this.resolveRunId();
        await this.api.request('POST', `/v1/runs/${runId}/tool-results`, { results } satisfies ToolResultsBody);
      },
      fail: (error) => this.fail(error),
    });
    this.view.addCards(cards);
  }

  /** Shows a failure in the panel and tells the page's `error` listeners. */
  private fail(error: unknown): void {
    const { code, lines } = describeFailure(error, this.t);
    if (error instanceof ProblemError && error.kind === 'http')
      console.warn(`[agentry] ${error.code}: ${error.message}`);
    this.view.showNotice(lines, code);
    this.events.emit('error', { code, message: error instanceof Error ? error.message : String(error) });
  }
}
