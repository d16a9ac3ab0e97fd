/**
 * Writes `configs/agent-config.schema.json` from `src/agent-config-schema.ts`, the source of the
 * agent config format (`pnpm config-schema`). The file is what editors (`"$schema"`), the docs and
 * tenants read; `src/agent-config.test.ts` fails when it differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { agentConfigSchema } from './src/agent-config-schema.ts';

export const CONFIG_SCHEMA_FILE = fileURLToPath(new URL('../../configs/agent-config.schema.json', import.meta.url));

const LINE_WIDTH = 120; // biome.json's formatter.lineWidth: the output is already formatted as `biome format` would

/** The published JSON text of the schema, formatted as `biome format` leaves it. */
export function configSchemaJson(): string {
  return `${printJson(agentConfigSchema, '', '', '')}\n`;
}

/**
 * One value: on one line when it fits (biome keeps such objects and arrays inline), otherwise one
 * property or item per line. `prefix` is what precedes it on its line, `suffix` what follows.
 */
function printJson(value: unknown, indent: string, prefix: string, suffix: string): string {
  const flat = inline(value);
  if (
    typeof value !== 'object' ||
    value === null ||
    indent.length + prefix.length + flat.length + suffix.length <= LINE_WIDTH
  ) {
    return flat;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item, i) => {
      const comma = i < value.length - 1 ? ',' : '';
      return `${inner}${printJson(item, inner, '', comma)}${comma}`;
    });
    return `[\n${items.join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item], i) => {
    const comma = i < entries.length - 1 ? ',' : '';
    const head = `${JSON.stringify(key)}: `;
    return `${inner}${head}${printJson(item, inner, head, comma)}${comma}`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

if (import.meta.main) {
  writeFileSync(CONFIG_SCHEMA_FILE, configSchemaJson());
  console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
}
