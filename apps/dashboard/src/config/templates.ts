import type { AgentConfigDocument } from '@agentry/contract';

export interface Template {
  id: string;
  name: string;
  description: string;
  config: AgentConfigDocument;
}

// Bundled at build time; the schema is neither a template nor shipped. The exclusion names the same
// folder as the pattern: `!**/*.schema.json` is taken relative to this file's folder and matched nothing.
const modules = import.meta.glob<{ default: unknown }>(
  ['../../../../configs/*.json', '!../../../../configs/*.schema.json'],
  { eager: true },
);

/** Templates from a `path → module` map; files that are not agent configs are skipped. */
export function templatesFrom(files: Record<string, { default: unknown }>): Template[] {
  const out: Template[] = [];
  for (const [path, module] of Object.entries(files)) {
    const config = module.default as AgentConfigDocument | undefined;
    if (!config || typeof config !== 'object' || !config.basic_settings) continue;
    const { $schema: _schema, ...rest } = config;
    const id =
      path
        .split('/')
        .pop()
        ?.replace(/\.json$/, '') ?? path;
    out.push({
      id,
      name: config.basic_settings.name || id,
      description: config.basic_settings.description ?? '',
      config: rest as AgentConfigDocument,
    });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

export const templates: Template[] = templatesFrom(modules);
