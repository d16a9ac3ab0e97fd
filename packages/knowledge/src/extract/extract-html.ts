import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { SectionBuilder } from './section-builder.ts';

const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
  'caption',
]);
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'head',
  'button',
  'select',
]);
/** Page furniture dropped when Readability finds no article and the whole body is read. */
const CHROME = new Set(['nav', 'footer', 'header', 'aside', 'form']);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

export interface HtmlResult {
  title: string | null;
  builder: SectionBuilder;
  links: string[];
}

/**
 * An HTML page's main content (Readability drops navigation, footers and ads) as sections under
 * its `h1`–`h6` headings, its `<title>`, and its absolute http(s) links (for crawling).
 * `mainContent: false` reads the whole body as it is (DOCX converted to HTML has no page chrome).
 */
export function extractHtml(
  html: string,
  options: { maxChars: number; url?: string | undefined; mainContent: boolean },
): HtmlResult {
  const { document } = parseHTML(html);
  const links = collectLinks(document, options.url);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  const pageH1 = document.querySelector('h1')?.textContent?.trim() || null;
  let root: DomNode | null = null;
  let title = pageTitle;
  const builder = new SectionBuilder(options.maxChars);
  if (options.mainContent) {
    const article = readArticle(document);
    if (article) {
      const body = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
      root = body as DomNode;
      title = pageTitle ?? (article.title?.trim() || null);
      // Readability drops an h1 that repeats the title; keep it as the outermost heading of the path.
      if (pageH1 && !body.querySelector('h1')) builder.heading(1, pageH1);
    }
  }
  const walker = new Walker(builder, root === null && options.mainContent);
  walker.walk(root ?? (document.body as DomNode | null) ?? (document.documentElement as DomNode));
  walker.end();
  return { title: title ?? walker.firstH1 ?? pageH1, builder, links };
}

function readArticle(document: unknown): { content: string; title: string | null } | null {
  try {
    const article = new Readability(document as Document, { charThreshold: 200 }).parse();
    return article?.content ? { content: article.content, title: article.title ?? null } : null;
  } catch {
    return null; // Readability gives up on odd trees: read the body instead
  }
}

function collectLinks(document: ReturnType<typeof parseHTML>['document'], pageUrl: string | undefined): string[] {
  const base = baseUrl(document.querySelector('base[href]')?.getAttribute('href') ?? undefined, pageUrl);
  const seen = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href]')) {
    const href = anchor.getAttribute('href')?.trim();
    if (!href) continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    seen.add(url.href);
  }
  return [...seen];
}

function baseUrl(baseHref: string | undefined, pageUrl: string | undefined): string | undefined {
  try {
    return baseHref ? new URL(baseHref, pageUrl).href : pageUrl;
  } catch {
    return pageUrl;
  }
}

/** Walks a DOM in order: headings start sections, block elements end paragraphs. */
class Walker {
  firstH1: string | null = null;
  private text = '';

  private readonly builder: SectionBuilder;
  private readonly dropChrome: boolean;

  constructor(builder: SectionBuilder, dropChrome: boolean) {
    this.builder = builder;
    this.dropChrome = dropChrome;
  }

  walk(node: DomNode): void {
    if (node.nodeType === 3) {
      this.text += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== 1) return;
    const tag = node.nodeName.toLowerCase();
    if (SKIP.has(tag) || (this.dropChrome && CHROME.has(tag))) return;
    const level = /^h([1-6])$/.exec(tag)?.[1];
    if (level) {
      this.end();
      const heading = node.textContent ?? '';
      if (level === '1') this.firstH1 ??= heading.trim() || null;
      this.builder.heading(Number(level), heading);
      return;
    }
    if (tag === 'br') this.text += '\n';
    const block = BLOCK.has(tag);
    if (block) this.end();
    if (tag === 'li') this.text += '- ';
    const children = node.childNodes;
    for (let at = 0; at < children.length; at++) this.walk(children[at] as DomNode);
    if (tag === 'td' || tag === 'th') this.text += ' | ';
    if (block || tag === 'pre') this.end();
  }

  /** Ends the current paragraph. */
  end(): void {
    const text = this.text.replace(/(\s*\|\s*)+$/, '');
    this.text = '';
    if (text.replace(/^- /, '').trim()) this.builder.paragraph(text);
  }
}
