import { Lexer, type Token, type Tokens } from 'marked';
import { SectionBuilder } from './section-builder.ts';

/** Markdown's sections: `#` headings nest, lists/code/quotes stay paragraphs, table rows read "header: cell". */
export function extractMarkdown(text: string, maxChars: number): { title: string | null; builder: SectionBuilder } {
  const builder = new SectionBuilder(maxChars);
  let title: string | null = null;
  const tokens = new Lexer({ gfm: true }).lex(text);
  for (const token of tokens) {
    if (token.type === 'heading') {
      const heading = inlineText((token as Tokens.Heading).tokens);
      if (token.depth === 1 && title === null) title = heading.trim() || null;
      builder.heading((token as Tokens.Heading).depth, heading);
    } else builder.paragraph(blockText(token));
  }
  return { title, builder };
}

function blockText(token: Token): string {
  switch (token.type) {
    case 'paragraph':
    case 'text':
      return 'tokens' in token && token.tokens ? inlineText(token.tokens) : (token.text as string);
    case 'code':
      return token.text as string;
    case 'blockquote':
      return (token as Tokens.Blockquote).tokens.map(blockText).join('\n');
    case 'list':
      return (token as Tokens.List).items
        .map((item) => `- ${item.tokens.map(blockText).join('\n').replace(/\n+/g, '\n  ')}`)
        .join('\n');
    case 'table': {
      const table = token as Tokens.Table;
      const header = table.header.map((cell) => inlineText(cell.tokens));
      return table.rows
        .map((row) =>
          row
            .map((cell, at) => labelled(header[at], inlineText(cell.tokens)))
            .filter(Boolean)
            .join('; '),
        )
        .join('\n');
    }
    case 'html':
      return stripTags(token.text as string);
    case 'heading':
      return inlineText((token as Tokens.Heading).tokens);
    default:
      return '';
  }
}

function labelled(header: string | undefined, value: string): string {
  if (!value.trim()) return '';
  return header?.trim() ? `${header.trim()}: ${value.trim()}` : value.trim();
}

/** Inline Markdown as plain text (emphasis, links and code spans keep their words). */
function inlineText(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  return tokens
    .map((token) => {
      if (token.type === 'br') return '\n';
      if (token.type === 'html') return stripTags(token.text as string);
      if ('tokens' in token && token.tokens?.length) return inlineText(token.tokens);
      return 'text' in token && typeof token.text === 'string' ? unescapeEntities(token.text) : '';
    })
    .join('');
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, ' ');
}

// marked escapes these in text tokens.
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
function unescapeEntities(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}
