import type { FieldIssue } from '@agentry/errors';
import type { ErrorObject } from 'ajv';
import { pointer, readablePath } from './json-pointer.ts';
import { didYouMean } from './suggest.ts';

type Schema = Record<string, unknown>;

/**
 * Turns ajv's errors (collected with `allErrors` and `verbose`) into issues a non-developer can act
 * on: stable code, plain message, and a hint such as "did you mean `endpoint`?". `root` names the
 * validated document in messages about its top level.
 *
 * @example
 * ajvIssues(validate.errors ?? [], 'the arguments');
 */
export function ajvIssues(errors: readonly ErrorObject[], root = 'the configuration'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const error of withoutBranchNoise(errors)) {
    const issue = toIssue(error, root);
    const key = `${issue.path}\u0000${issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/** Drops the per-branch errors of a failed anyOf/oneOf and the inner errors of propertyNames: one issue each. */
function withoutBranchNoise(errors: readonly ErrorObject[]): ErrorObject[] {
  const branchRoots = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => `${e.instancePath}\u0000${e.schemaPath}/`);
  return errors.filter((e) => {
    if (e.propertyName !== undefined && e.keyword !== 'propertyNames') return false;
    return !branchRoots.some((root) => `${e.instancePath}\u0000${e.schemaPath}`.startsWith(root));
  });
}

function toIssue(error: ErrorObject, root: string): FieldIssue {
  const path = error.instancePath;
  const where = path === '' ? root : readablePath(path);
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as Schema;
  const inToolParameters = /^\/tools\/\d+\/parameters(\/|$)/.test(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((parent.properties as Schema | undefined) ?? {});
      const message = inToolParameters
        ? `${where}: \`${key}\` is not a supported JSON Schema keyword in tool parameters`
        : `${where} has an unknown key \`${key}\``;
      return issue(path + pointer(key), 'unknown_key', message, didYouMean(key, known) ?? knownKeysHint(known));
    }
    case 'required': {
      const key = String(params.missingProperty);
      return issue(path + pointer(key), 'missing_key', `${where} needs the key \`${key}\``);
    }
    case 'type':
      return issue(path, 'wrong_type', `${where} must be ${article(String(params.type))}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => String(v));
      const got = typeof error.data === 'string' ? error.data : '';
      return issue(
        path,
        'invalid_value',
        `${where} must be one of: ${allowed.join(', ')}`,
        got ? didYouMean(got, allowed) : undefined,
      );
    }
    case 'const':
      return issue(path, 'invalid_value', `${where} must be ${JSON.stringify(params.allowedValue)}`);
    case 'minLength':
      return params.limit === 1
        ? issue(path, 'empty_value', `${where} must not be empty`)
        : issue(path, 'too_short', `${where} must be at least ${params.limit} characters long`);
    case 'maxLength':
      return issue(path, 'too_long', `${where} must be at most ${params.limit} characters long`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return issue(path, 'out_of_range', `${where} must be ${params.comparison} ${params.limit}`);
    case 'minItems':
      return issue(path, 'too_few', `${where} must have at least ${params.limit} item(s)`);
    case 'maxItems':
      return issue(path, 'too_many', `${where} may have at most ${params.limit} items`);
    case 'maxProperties':
      return issue(path, 'too_many', `${where} may have at most ${params.limit} keys`);
    case 'uniqueItems':
      return issue(path, 'duplicate_value', `${where} lists the same value twice (items ${params.j} and ${params.i})`);
    case 'pattern':
      return issue(path, 'invalid_format', `${where} ${xMessage(parent) ?? `must match ${params.pattern}`}`);
    case 'format':
      return issue(path, 'invalid_format', `${where} must be a valid ${params.format}`);
    case 'propertyNames': {
      const name = String(params.propertyName);
      const rule = xMessage((error.schema ?? {}) as Schema) ?? 'is not an allowed name';
      return issue(path + pointer(name), 'invalid_name', `${readablePath(path + pointer(name))}: the name ${rule}`);
    }
    case 'anyOf':
    case 'oneOf':
      return issue(path, 'invalid_value', `${where} is not one of the allowed forms`);
    case 'not':
      return issue(path, 'invalid_value', `${where} ${xMessage(parent) ?? 'is not allowed here'}`);
    default:
      return issue(path, `schema_${error.keyword}`, `${where} ${error.message ?? 'is invalid'}`);
  }
}

function issue(path: string, code: string, message: string, hint?: string): FieldIssue {
  return hint === undefined ? { path, code, message } : { path, code, message, hint };
}

function xMessage(schema: Schema): string | undefined {
  const value = schema['x-message'];
  return typeof value === 'string' ? value : undefined;
}

function knownKeysHint(known: string[]): string | undefined {
  return known.length > 0 && known.length <= 12 ? `allowed keys: ${known.join(', ')}` : undefined;
}

function article(type: string): string {
  const words = type.split(',').map((t) => (t === 'integer' || t === 'array' || t === 'object' ? `an ${t}` : `a ${t}`));
  return words.join(' or ');
}
