import type { EndUserConfig, ParametersSchema, ToolConfig } from '@agentry/contract';
import { type AppError, errors, type FieldIssue } from '@agentry/errors';
import type { CompiledTool, RenderedRequest, ToolContext } from './compiled-agent.ts';
import { withContextAliases } from './context-variables.ts';
import { defaults } from './defaults.ts';
import { argumentsValidator } from './parameters-validator.ts';
import { compileRequestTemplate, type RequestTemplate, renderRequest } from './request-template.ts';
import type { TemplateView } from './template.ts';

const emptyParameters: ParametersSchema = { type: 'object', properties: {} };

/** Methods that may be retried safely: repeating them does not repeat a side effect. */
export const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/**
 * Compiles one tool: argument validator, request templates, timeouts. Returns issues (with
 * pointers under `/tools/<index>`) instead of throwing.
 *
 * @example
 * const result = compileTool(config.tools[0], 0, { contextNames: ['dialogId'], defaultTimeoutMs: 30_000 });
 */
export function compileTool(
  tool: ToolConfig,
  index: number,
  options: { contextNames: readonly string[]; defaultTimeoutMs: number; endUser?: EndUserConfig | undefined },
): { ok: true; tool: CompiledTool } | { ok: false; issues: FieldIssue[] } {
  const at = `/tools/${index}`;
  const parameters = tool.parameters ?? emptyParameters;
  const parameterNames = Object.keys(parameters.properties ?? {});
  const kind = tool.type ?? 'http';
  let request: RequestTemplate | undefined;
  if (kind === 'http') {
    if (!tool.endpoint) {
      return {
        ok: false,
        issues: [
          {
            path: `${at}/endpoint`,
            code: 'missing_key',
            message: `tools[${index}] (\`${tool.name}\`) is an HTTP tool but has no \`endpoint\``,
            hint: 'add an endpoint with a url, or set "type": "client" for a tool the embedding page runs',
          },
        ],
      };
    }
    const endUser = options.endUser;
    const compiled = compileRequestTemplate(tool.endpoint, `${at}/endpoint`, {
      parameters: parameterNames,
      context: options.contextNames,
      ...(endUser ? { user: { claims: endUser.claims, forwardToken: endUser.forward_token ?? false } } : {}),
    });
    if (!compiled.ok) return compiled;
    request = compiled.template;
  }
  let validate: ReturnType<typeof argumentsValidator>;
  try {
    validate = argumentsValidator(parameters as unknown as Record<string, unknown>);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      issues: [
        {
          path: `${at}/parameters`,
          code: 'invalid_parameters_schema',
          message: `tools[${index}].parameters: ${detail}`,
        },
      ],
    };
  }
  const definition = { name: tool.name, description: tool.description, parameters: { ...parameters } };
  const timeoutSeconds = tool.endpoint?.timeout;
  return {
    ok: true,
    tool: {
      name: tool.name,
      kind,
      definition,
      method: tool.endpoint?.method ?? 'GET',
      timeoutMs: timeoutSeconds === undefined ? options.defaultTimeoutMs : Math.round(timeoutSeconds * 1000),
      idempotent: tool.idempotent ?? idempotentMethods.has(tool.endpoint?.method ?? 'GET'),
      retries: tool.retries ?? 0,
      ...(tool.cache && kind === 'http' ? { cache: { ttlSeconds: tool.cache.ttl } } : {}),
      approval: tool.approval ?? 'never',
      secretNames: request?.secrets ?? [],
      userValues: request?.user ?? [],
      response: {
        maxBytes: tool.response?.max_bytes ?? defaults.responseMaxBytes,
        ...(tool.response?.fields ? { fields: tool.response.fields } : {}),
        ...(tool.response?.ephemeral ? { ephemeral: tool.response.ephemeral } : {}),
      },
      validateArguments: (args) => {
        const result = validate(args);
        if (!result.ok) return result;
        if (result.value === null || typeof result.value !== 'object' || Array.isArray(result.value)) {
          return {
            ok: false,
            issues: [{ path: '', code: 'wrong_type', message: 'the arguments must be a JSON object' }],
          };
        }
        return { ok: true, value: result.value as Record<string, unknown> };
      },
      render: (args, ctx) => {
        if (!request) throw clientToolError(tool.name);
        return render(request, parameterNames, args, ctx, options.endUser?.sign_in_message ?? defaultSignInMessage);
      },
    },
  };
}

/** What the model is told when a tool needs the end user and there is none (`end_user.sign_in_message`). */
export const defaultSignInMessage = 'This needs you to sign in first.';

function render(
  request: RequestTemplate,
  parameterNames: readonly string[],
  args: Record<string, unknown>,
  ctx: ToolContext,
  signInMessage: string,
): RenderedRequest {
  // Before anything else: without a verified, unexpired end user nothing is rendered or sent.
  const user = request.user.length > 0 ? userView(ctx, signInMessage) : undefined;
  const missing = request.secrets.filter((name) => typeof ctx.secrets[name] !== 'string');
  if (missing.length > 0) {
    throw errors.of({
      code: 'missing_secret',
      message: `The tool needs the secret(s) ${missing.join(', ')}, which this tenant has not configured`,
      category: 'user',
      retryable: false,
      details: { secrets: missing },
    });
  }
  return renderRequest(request, buildView(parameterNames, args, ctx, user));
}

/**
 * The `user` scope of a tool that reads `{{user.…}}`: the declared claims and the token, only
 * while the token has not expired. Throws `sign_in_required` (the agent's message, for the model to
 * relay) when the run has no verified end user or its token expired.
 */
function userView(ctx: ToolContext, signInMessage: string): Record<string, unknown> {
  const user = ctx.user;
  if (!user || user.expiresAt * 1000 <= Date.now()) {
    throw errors.of({
      code: 'sign_in_required',
      message: signInMessage,
      category: 'user',
      retryable: false,
    });
  }
  const view: Record<string, unknown> = Object.assign(Object.create(null), user.claims);
  if (user.token !== undefined) view.token = user.token;
  return view;
}

/**
 * The view a template reads. Only declared parameters are copied from the model's arguments, and
 * `context`/`secrets`/`user` are set last, so an argument can never fill or override them.
 */
function buildView(
  parameterNames: readonly string[],
  args: Record<string, unknown>,
  ctx: ToolContext,
  user: Record<string, unknown> | undefined,
): TemplateView {
  const view: Record<string, unknown> = Object.create(null);
  for (const name of parameterNames) if (Object.hasOwn(args, name)) view[name] = args[name];
  view.context = withContextAliases(ctx.context);
  view.secrets = Object.assign(Object.create(null), ctx.secrets);
  // Only for tools that read `{{user.…}}` (the loader refuses a parameter named `user` there).
  if (user) view.user = user;
  return view as TemplateView;
}

function clientToolError(name: string): AppError {
  return errors.of({
    code: 'client_tool',
    message: `\`${name}\` is a client tool: the embedding application runs it, not the server`,
    category: 'user',
    retryable: false,
  });
}
