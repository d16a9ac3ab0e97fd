import type { Citation } from '@agentry/contract/schemas';
import { el } from './dom.ts';
import type { Translate } from './i18n.ts';

/** At most this many sources are listed under one answer. */
const MAX_SOURCES = 20;

/**
 * A source's address as a link target: http(s) URLs only (no `javascript:`, `data:`, relative or
 * malformed ones), normalised by the URL parser.
 *
 * @example
 * safeSourceUrl('https://help.example.com/refunds'); // 'https://help.example.com/refunds'
 * safeSourceUrl('javascript:alert(1)'); // undefined
 */
export function safeSourceUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
}

/** What a source says after its title: its heading path and page (`Billing › Refunds · page 3`). */
export function sourceDetail(citation: Pick<Citation, 'heading_path' | 'page'>, t: Translate): string {
  const parts: string[] = [];
  const headings = Array.isArray(citation.heading_path)
    ? citation.heading_path.filter((h) => typeof h === 'string')
    : [];
  if (headings.length > 0) parts.push(headings.join(' › '));
  if (typeof citation.page === 'number') parts.push(t('sourcePage', { page: String(citation.page) }));
  return parts.join(' · ');
}

/**
 * The "Sources" list under an answer: `[n] title` (a link only for http(s) URL sources, opened in a
 * new tab without access to this page), then its heading path and page. Every string goes in as
 * text, never as markup. None when the answer cites nothing.
 *
 * @example
 * const list = renderSources(message.citations, t);
 * if (list) bubble.after(list);
 */
export function renderSources(citations: readonly Citation[] | undefined, t: Translate): HTMLElement | undefined {
  if (!Array.isArray(citations) || citations.length === 0) return undefined;
  const items = citations.slice(0, MAX_SOURCES).map((citation) => {
    const title = `${String(citation.title ?? '')}`;
    const href = safeSourceUrl(citation.url);
    const label = href
      ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'source-title' }, title)
      : el('span', { class: 'source-title' }, title);
    const detail = sourceDetail(citation, t);
    return el(
      'li',
      { 'data-marker': String(Number(citation.marker) || '') },
      el('span', { class: 'source-marker' }, `[${Number(citation.marker) || '?'}] `),
      label,
      ...(detail ? [el('span', { class: 'source-detail' }, ` — ${detail}`)] : []),
    );
  });
  return el(
    'div',
    { class: 'sources', role: 'group', 'aria-label': t('sources') },
    el('div', { class: 'sources-title' }, t('sources')),
    el('ol', {}, ...items),
  );
}
