import type { ActionBook, AgentConfig } from '@agentry/contract';

/**
 * The system prompt of an agent: identity, background, language and tone, then each action book
 * as a numbered rule naming its tools. Pure and deterministic, so providers can cache it.
 *
 * @example
 * buildSystemPrompt({ basic_settings: { name: 'Ava' }, action_books: [], tools: [] });
 * // 'You are Ava.'
 */
export function buildSystemPrompt(config: AgentConfig): string {
  const s = config.basic_settings;
  const sections = [
    [`You are ${s.name}.`, s.description?.trim()].filter(Boolean).join(' '),
    section('Background', s.background),
    section('Language and tone', languageAndTone(s.language, s.tone)),
    section('Rules', rules(config.action_books)),
    section('Additional instructions', s.instructions),
    section('Sources', sources(config.knowledge)),
    config.require_done_tool ? section('Finishing', 'When the task is complete, call the `done` tool.') : undefined,
  ];
  return sections.filter((part): part is string => Boolean(part)).join('\n\n');
}

function section(title: string, body: string | undefined): string | undefined {
  const text = body?.trim();
  return text ? `## ${title}\n${text}` : undefined;
}

/** How an agent with knowledge bases finds its sources and cites them. */
function sources(knowledge: AgentConfig['knowledge']): string | undefined {
  if (!knowledge) return undefined;
  const find =
    knowledge.mode === 'auto'
      ? "Passages of the business's documents that match the user's message are given to you as the result of `search_knowledge`, numbered [n]."
      : "Search the business's documents with the `search_knowledge` tool before answering questions about the business; its passages come numbered [n].";
  return `${find}\nAnswer from these passages and cite the ones you use with their numbers right after the statement they support, like [1] or [1, 3]. If they do not answer the question, say so.`;
}

function languageAndTone(language: string | undefined, tone: string | undefined): string | undefined {
  const lines = [
    language?.trim() ? `Always reply in ${language.trim()}, unless the user explicitly asks for another language.` : '',
    tone?.trim() ? `Tone: ${tone.trim()}.` : '',
  ].filter(Boolean);
  return lines.length > 0 ? lines.join('\n') : undefined;
}

function rules(books: readonly ActionBook[]): string | undefined {
  if (books.length === 0) return undefined;
  const lines = books.map((book, i) => {
    const tools = book.tools?.length ? ` (use: ${book.tools.map((t) => `\`${t}\``).join(', ')})` : '';
    return `${i + 1}. When ${lowerFirst(stripPeriod(book.condition))}: ${stripPeriod(book.action)}${tools}.`;
  });
  return `Follow these rules:\n${lines.join('\n')}`;
}

function stripPeriod(text: string): string {
  return text.trim().replace(/[.。]+$/, '');
}

// "When When customer ..." reads badly; the seed writes conditions starting with "When".
function lowerFirst(condition: string): string {
  const withoutWhen = condition.replace(/^when\s+/i, '');
  return withoutWhen.charAt(0).toLowerCase() + withoutWhen.slice(1);
}
