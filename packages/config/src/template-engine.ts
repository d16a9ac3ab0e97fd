import Handlebars from 'handlebars';
import { encodeFor, type TemplatePosition, valueText } from './template-values.ts';

/** Helpers tenants may call in templates, e.g. `{{lower email}}`, `{{default nickname "friend"}}`. */
export const templateHelperNames = ['lower', 'upper', 'trim', 'default'] as const;

/** Internal helper wrapping every placeholder output, one per position (added by us, not by tenants). */
export const encodeHelperName: Record<TemplatePosition, string> = {
  path: '__agentry_encode_path',
  query: '__agentry_encode_query',
  header: '__agentry_encode_header',
  body: '__agentry_encode_body',
};

assertSafeVersion(Handlebars.VERSION);

/** An isolated Handlebars environment: registering our helpers never touches the global one. */
export const handlebars = Handlebars.create();

// Helpers receive raw values; the trailing Handlebars `options` argument is dropped.
handlebars.registerHelper('lower', (value: unknown) => valueText(value).toLowerCase());
handlebars.registerHelper('upper', (value: unknown) => valueText(value).toUpperCase());
handlebars.registerHelper('trim', (value: unknown) => valueText(value).trim());
handlebars.registerHelper('default', (value: unknown, fallback: unknown) =>
  value === undefined || value === null || value === '' ? fallback : value,
);
for (const [position, name] of Object.entries(encodeHelperName)) {
  handlebars.registerHelper(name, (value: unknown) => encodeFor(position as TemplatePosition, value));
}

/** Compile options: only our helpers, no @data, no HTML escaping (we encode per position). */
export const compileOptions: CompileOptions = {
  knownHelpers: {
    ...Object.fromEntries(templateHelperNames.map((n) => [n, true])),
    ...Object.fromEntries(Object.values(encodeHelperName).map((n) => [n, true])),
    helperMissing: false,
    blockHelperMissing: false,
    each: false,
    if: false,
    unless: false,
    with: false,
    log: false,
    lookup: false,
  },
  knownHelpersOnly: true,
  noEscape: true,
  strict: false,
  data: false,
  compat: false,
  preventIndent: true,
};

/** Runtime options: prototype properties and methods are never reachable from a template. */
export const runtimeOptions: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
};

function assertSafeVersion(version: string): void {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  // 4.7.9 closed the last known prototype-pollution/RCE holes; refuse to run on anything older.
  if (major < 4 || (major === 4 && (minor < 7 || (minor === 7 && patch < 9)))) {
    throw new Error(`handlebars ${version} is too old: 4.7.9 or newer is required`);
  }
}
