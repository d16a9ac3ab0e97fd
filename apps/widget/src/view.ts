import type { Citation, Message, WidgetSettings } from '@agentry/contract/schemas';
import { el, ICON_CHAT, ICON_CLOSE, ICON_NEW, ICON_SEND, ICON_STOP } from './dom.ts';
import type { Translate } from './i18n.ts';
import { renderMarkdown } from './markdown.ts';
import { renderSources } from './sources.ts';
import { css } from './styles.ts';
import { applyTheme } from './theme.ts';

/** What the visitor's clicks and keys ask the widget to do. */
export interface ViewHandlers {
  /** The launcher was clicked. */
  toggle(): void;
  /** The close button or Escape. */
  close(): void;
  newConversation(): void;
  /** The form was submitted; `enter` when by the Enter key (which never stops a run). */
  submit(enter: boolean): void;
  /** A streamed reply is complete. */
  message(text: string): void;
}

/**
 * The widget's DOM: a launcher and a dialog panel in an open shadow root (the page's CSS cannot
 * reach in, ours cannot leak out), and the rendering of messages, chips, notices and status.
 */
export class WidgetView {
  /** The current translator; replaced once the agent's language is known. */
  t: Translate;
  readonly host: HTMLElement;
  readonly shadow: ShadowRoot;
  readonly panel: HTMLElement;
  readonly log: HTMLDivElement;
  readonly input: HTMLTextAreaElement;
  private readonly root: HTMLDivElement;
  private readonly launcher: HTMLButtonElement;
  private readonly titleEl: HTMLHeadingElement;
  private readonly notice: HTMLDivElement;
  private readonly status: HTMLDivElement;
  private readonly live: HTMLDivElement;
  private readonly suggestions: HTMLDivElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly newButton: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;
  private readonly inputLabel: HTMLLabelElement;
  private readonly handlers: ViewHandlers;
  private busyState = false;
  private pinned = true;
  private current: { el: HTMLElement; text: string; timer?: ReturnType<typeof setTimeout> } | undefined;

  constructor(t: Translate, handlers: ViewHandlers) {
    this.t = t;
    this.handlers = handlers;
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
    this.inputLabel = el('label', { class: 'sr', for: 'input' });
    const form = el('form', {}, this.inputLabel, this.input, this.sendButton);
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
    this.label();
    this.theme({});
    this.listen(form);
  }

  private listen(form: HTMLFormElement): void {
    const { handlers, input, log } = this;
    this.launcher.addEventListener('click', () => handlers.toggle());
    this.closeButton.addEventListener('click', () => handlers.close());
    log.addEventListener('scroll', () => {
      this.pinned = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    });
    this.newButton.addEventListener('click', () => handlers.newConversation());
    this.panel.addEventListener('keydown', (e) => this.onKey(e));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      handlers.submit(false);
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        handlers.submit(true);
      }
    });
    // The textarea grows with its text, up to 120 px.
    input.addEventListener('input', () => {
      input.style.height = 'auto';
      input.style.height = `${Math.min(input.scrollHeight, 120)}px`;
    });
  }

  /** Whether a run is going (the send button is then a stop button). */
  get busy(): boolean {
    return this.busyState;
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  /** Shows the panel and puts the focus in the input. */
  show(): void {
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.launcher.setAttribute('aria-label', this.t('close'));
    this.input.focus();
    this.scroll(true);
  }

  /** Hides the panel and gives the focus back to the launcher. */
  hide(): void {
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    this.launcher.setAttribute('aria-label', this.t('open'));
    this.launcher.focus();
  }

  /** (Re)applies the translator to every label. */
  label(): void {
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
    this.inputLabel.textContent = t('inputLabel');
    this.setBusy(this.busyState);
  }

  /** Applies the agent's widget settings: colours, position and title. */
  theme(widget: Partial<WidgetSettings>): void {
    applyTheme(this.root, widget);
    this.titleEl.textContent = widget.title || this.t('title');
  }

  setBusy(busy: boolean): void {
    this.busyState = busy;
    this.sendButton.innerHTML = busy ? ICON_STOP : ICON_SEND;
    this.sendButton.setAttribute('aria-label', this.t(busy ? 'stop' : 'send'));
    this.log.setAttribute('aria-busy', String(busy));
  }

  setStatus(text: string): void {
    this.status.textContent = text;
  }

  /** Shows a failure; `code` goes to `data-code` for the page's CSS and the tests. */
  showNotice(lines: string[], code: string): void {
    this.notice.replaceChildren(...lines.map((line) => el('p', {}, line)));
    this.notice.hidden = false;
    this.notice.dataset.code = code;
  }

  hideNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  clearInput(): void {
    this.input.value = '';
    this.input.style.height = '';
  }

  /** Empties the log, dropping a reply still streaming. */
  clearLog(): void {
    this.current = undefined;
    this.log.replaceChildren();
  }

  /** Puts the greeting first in the log, once. */
  greet(text: string): void {
    if (this.log.querySelector('.greeting')) return;
    const greeting = this.addAssistant(text);
    greeting.classList.add('greeting');
    this.log.prepend(greeting);
  }

  /** Replaces the suggested questions; `pick` runs when one is clicked. */
  suggest(questions: string[], pick: (question: string) => void): void {
    this.suggestions.replaceChildren();
    for (const question of questions) {
      const button = el('button', { type: 'button' }, question);
      button.addEventListener('click', () => pick(question));
      this.suggestions.append(button);
    }
  }

  /**
   * Shows a flow's answers as buttons under the last message (labels as text, never markup);
   * `pick` runs when one is clicked. An empty list removes them.
   */
  quickReplies(labels: readonly string[], pick: (label: string) => void): void {
    this.log.querySelector('.quick-replies')?.remove();
    if (labels.length === 0) return;
    const group = el('div', { class: 'quick-replies', role: 'group', 'aria-label': this.t('quickReplies') });
    for (const label of labels) {
      const button = el('button', { type: 'button', class: 'btn' }, label);
      button.addEventListener('click', () => pick(label));
      group.append(button);
    }
    this.log.append(group);
    this.scroll(true);
  }

  /** Appends tool cards and focuses the first open one (only when the panel shows). */
  addCards(cards: HTMLElement[]): void {
    this.log.append(...cards);
    this.scroll(true);
    const first = this.log.querySelector<HTMLButtonElement>('.card button:not([disabled])');
    if (!this.panel.hidden) first?.focus();
  }

  /** Renders a message of a fetched transcript (its tool calls as chips). */
  addStored(message: Message): void {
    const text = message.content
      .filter((p) => p.type === 'text')
      .map((p) => p.text ?? '')
      .join('');
    if (message.role === 'user') {
      if (text) this.addUser(text);
    } else if (message.role === 'assistant') {
      if (text.trim()) this.addAssistant(text);
      this.addSources(message.citations);
      for (const part of message.content)
        if (part.type === 'tool_call' && part.name) this.addChip(this.t('toolUsed', { name: part.name }));
    }
  }

  addUser(text: string): void {
    this.log.append(el('div', { class: 'msg user' }, el('span', { class: 'sr' }, `${this.t('you')}: `), text));
    this.scroll(true);
  }

  /** The "Sources" list under the answer just written (nothing when it cites none). */
  addSources(citations: readonly Citation[] | undefined): void {
    const list = renderSources(citations, this.t);
    if (!list) return;
    this.log.append(list);
    this.scroll();
  }

  addChip(text: string): void {
    this.log.append(el('div', { class: 'chip' }, text));
    this.scroll();
  }

  addError(text: string): void {
    this.log.append(el('div', { class: 'error', role: 'alert' }, text));
    this.scroll();
  }

  /** Adds streamed text to the reply being written, starting one if needed. */
  appendDelta(delta: string): void {
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

  /** Completes the reply being written: final render, announced once (not token by token). */
  finishBubble(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    current.el.replaceChildren(this.markdown(current.text));
    current.el.classList.remove('streaming');
    current.el.removeAttribute('aria-busy');
    this.live.textContent = current.el.textContent ?? '';
    this.handlers.message(current.text);
    this.scroll();
  }

  /** Keeps the newest message in view, unless the visitor scrolled up to read. */
  scroll(force = false): void {
    if (force || this.pinned) this.log.scrollTop = this.log.scrollHeight;
  }

  private addAssistant(text: string): HTMLElement {
    const bubble = el('div', { class: 'msg assistant' });
    bubble.append(this.markdown(text));
    this.log.append(bubble);
    return bubble;
  }

  private markdown(text: string): DocumentFragment {
    return renderMarkdown(text, { loadImageLabel: (host) => this.t('loadImage', { host }) });
  }

  /** Escape closes; Tab cycles within the panel (it is a modal dialog). */
  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.handlers.close();
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
}
