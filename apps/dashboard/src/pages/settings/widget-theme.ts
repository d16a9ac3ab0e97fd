import { type AgentConfigDocument, WIDGET_DEFAULT_COLORS, type WidgetConfig } from '@agentry/contract';

/** What the theme form edits, as plain strings (empty = not set). */
export interface ThemeForm {
  title: string;
  greeting: string;
  primary: string;
  background: string;
  text: string;
  position: 'bottom-right' | 'bottom-left';
  questions: string;
}

export const HEX_COLOR = /^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/;

export type ThemeColor = 'primary' | 'background' | 'text';

/**
 * The colour the widget will use, as `#rrggbb` for an `<input type="color">` (which takes no other
 * form): the form's value when it is a valid hex colour (`#rgb` expanded), else the widget's default,
 * so an unset colour shows what visitors will see rather than the picker's black or white.
 *
 * @example
 * pickerColor('', 'primary'); // '#2563eb' (the widget's default blue)
 * pickerColor('#0a7', 'primary'); // '#00aa77'
 */
export function pickerColor(value: string, color: ThemeColor): string {
  const hex = value.trim();
  if (!HEX_COLOR.test(hex)) return WIDGET_DEFAULT_COLORS[color];
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
  return full.toLowerCase();
}

export function themeForm(widget: WidgetConfig | undefined): ThemeForm {
  return {
    title: widget?.title ?? '',
    greeting: widget?.greeting ?? '',
    primary: widget?.colors?.primary ?? '',
    background: widget?.colors?.background ?? '',
    text: widget?.colors?.text ?? '',
    position: widget?.position ?? 'bottom-right',
    questions: (widget?.suggested_questions ?? []).join('\n'),
  };
}

/**
 * The config with its `widget` theme replaced by the form's (unset fields removed); settings the
 * form does not edit (allowed origins, browser_js_eval) are kept.
 *
 * @example
 * withTheme(config, { ...themeForm(undefined), title: 'Help' }).widget; // { title: 'Help', position: 'bottom-right' }
 */
export function withTheme(config: AgentConfigDocument, form: ThemeForm): AgentConfigDocument {
  const previous: WidgetConfig = config.widget ?? {};
  const colors = Object.fromEntries(
    (['primary', 'background', 'text'] as const).flatMap((k) => (form[k].trim() ? [[k, form[k].trim()]] : [])),
  );
  const questions = form.questions
    .split('\n')
    .map((q) => q.trim())
    .filter(Boolean);
  const widget: WidgetConfig = {
    ...(form.title.trim() ? { title: form.title.trim() } : {}),
    ...(form.greeting.trim() ? { greeting: form.greeting.trim() } : {}),
    ...(Object.keys(colors).length ? { colors } : {}),
    position: form.position,
    ...(questions.length ? { suggested_questions: questions } : {}),
    ...(previous.browser_js_eval !== undefined ? { browser_js_eval: previous.browser_js_eval } : {}),
    ...(previous.allowed_origins ? { allowed_origins: previous.allowed_origins } : {}),
  };
  return { ...config, widget };
}

/** The copy-paste embed code for a page. */
export function embedSnippet(scriptOrigin: string, key: string, agentId: string): string {
  return `<script src="${scriptOrigin}/widget.js" data-key="${key}" data-agent="${agentId}" async></script>`;
}

const escapeAttr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** A small page that loads the real widget, for the preview iframe. */
export function previewDocument(options: {
  scriptOrigin: string;
  apiBase: string;
  key: string;
  agentId: string;
  lang: string;
  text: string;
}): string {
  const { scriptOrigin, apiBase, key, agentId, lang, text } = options;
  return `<!doctype html><html lang="${escapeAttr(lang)}"><head><meta charset="utf-8"><style>body{font-family:system-ui,sans-serif;margin:1.5rem;color:#5d6b7e;background:#fafbfc}</style></head><body><p>${escapeAttr(text)}</p><script src="${escapeAttr(scriptOrigin)}/widget.js" data-key="${escapeAttr(key)}" data-agent="${escapeAttr(agentId)}" data-api="${escapeAttr(apiBase)}" data-lang="${escapeAttr(lang)}" async></script></body></html>`;
}
