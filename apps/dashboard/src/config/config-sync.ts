import type { AgentConfigDocument } from '@agentry/contract';

/** The JSON tab's text for a config. The form and the tab share one config object. */
export function configToText(config: AgentConfigDocument): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

export type ParsedConfig = { ok: true; config: AgentConfigDocument } | { ok: false; error: string; line?: number };

/** Reads the JSON tab's text; the form only takes it over when it is a JSON object. */
export function textToConfig(text: string): ParsedConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? undefined : text.slice(0, Number(position)).split('\n').length;
    return line === undefined ? { ok: false, error: message } : { ok: false, error: message, line };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'the configuration must be a JSON object' };
  }
  // Taken as typed, even without basic_settings: the loader reports what is missing, the form copes.
  return { ok: true, config: value as AgentConfigDocument };
}

/** Reads a dropped or picked file as a config, dropping the editor-only `$schema` key. */
export function fileTextToConfig(text: string): ParsedConfig {
  const parsed = textToConfig(text);
  if (!parsed.ok) return parsed;
  const { $schema: _schema, ...rest } = parsed.config;
  return { ok: true, config: rest as AgentConfigDocument };
}
