import type { ToolExecutionResult } from '@agentry/agent';
import { type CompiledMcpServer, MCP_PROMPT_TOOLS, MCP_RESOURCE_TOOLS, mcpToolName } from '@agentry/config';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { DiscoveredTool } from './discovered-tools.ts';
import { cutText, describePart, type MediaNote } from './map-call-result.ts';

/** The tools a server offers for its resources and prompts, when the config opts in. */
export type McpBuiltinTool = (typeof MCP_RESOURCE_TOOLS)[number] | (typeof MCP_PROMPT_TOOLS)[number];

/** Pages read per list call, and entries shown to the model. */
const maxPages = 5;
const maxEntries = 200;

const noArguments = { type: 'object', properties: {}, additionalProperties: false };

const schemas: Record<McpBuiltinTool, Record<string, unknown>> = {
  list_resources: noArguments,
  read_resource: {
    type: 'object',
    properties: {
      uri: { type: 'string', minLength: 1, maxLength: 2048, description: 'The URI from list_resources' },
    },
    required: ['uri'],
    additionalProperties: false,
  },
  list_prompts: noArguments,
  get_prompt: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200, description: 'The prompt name from list_prompts' },
      arguments: {
        type: 'object',
        description: 'The prompt arguments, by name (text values)',
        additionalProperties: { type: 'string', maxLength: 4000 },
      },
    },
    required: ['name'],
    additionalProperties: false,
  },
};

/**
 * The resource and prompt tools of one server, as discovery stores them: `list_resources` and
 * `read_resource` when the config sets `expose_resources` and the server declares resources;
 * `list_prompts` and `get_prompt` likewise for prompts.
 *
 * @example
 * builtinTools(server, { resources: true, prompts: false }); // crm__list_resources, crm__read_resource
 */
export function builtinTools(
  server: CompiledMcpServer,
  declared: { resources: boolean; prompts: boolean },
): DiscoveredTool[] {
  const names: McpBuiltinTool[] = [
    ...(server.exposeResources && declared.resources ? MCP_RESOURCE_TOOLS : []),
    ...(server.exposePrompts && declared.prompts ? MCP_PROMPT_TOOLS : []),
  ];
  return names.map((builtin) => ({
    name: mcpToolName(server.name, builtin),
    server: server.name,
    tool: builtin,
    builtin,
    description: describe(server.name, builtin),
    input_schema: structuredClone(schemas[builtin]),
  }));
}

/** Whether the config lets this server offer the builtin (it may have changed since discovery). */
export function builtinAllowed(server: CompiledMcpServer, builtin: McpBuiltinTool): boolean {
  return (MCP_RESOURCE_TOOLS as readonly string[]).includes(builtin) ? server.exposeResources : server.exposePrompts;
}

function describe(server: string, builtin: McpBuiltinTool): string {
  switch (builtin) {
    case 'list_resources':
      return `Lists the resources (documents, records, files) of the MCP server "${server}": URI, name and type. Read one with ${server}__read_resource.`;
    case 'read_resource':
      return `Reads one resource of the MCP server "${server}" by its URI (from ${server}__list_resources).`;
    case 'list_prompts':
      return `Lists the prompt templates of the MCP server "${server}" and their arguments. Get one with ${server}__get_prompt.`;
    case 'get_prompt':
      return `Gets one prompt template of the MCP server "${server}", filled with the given arguments.`;
  }
}

/**
 * Runs one builtin on an open session. Throws what the SDK throws (the executor explains it);
 * the arguments were already validated against the builtin's schema.
 *
 * @example
 * await runBuiltin(client, 'read_resource', { uri: 'test://handbook' }, { timeout: 5000 });
 */
export async function runBuiltin(
  client: Client,
  builtin: McpBuiltinTool,
  args: Record<string, unknown>,
  options: { timeout: number; signal?: AbortSignal },
  meta: Record<string, unknown>,
): Promise<ToolExecutionResult> {
  switch (builtin) {
    case 'list_resources': {
      const resources: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxPages && resources.length < maxEntries; page++) {
        const result = await client.listResources(cursor ? { cursor } : undefined, options);
        for (const r of result.resources) {
          resources.push({
            uri: r.uri,
            name: r.name,
            ...(r.description ? { description: r.description } : {}),
            ...(r.mimeType ? { mime_type: r.mimeType } : {}),
          });
        }
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      // Templates are optional in MCP; a server without them answers an error, which is not one here.
      const templates = await client
        .listResourceTemplates(undefined, options)
        .then((r) => r.resourceTemplates)
        .catch(() => []);
      return {
        output: {
          resources: resources.slice(0, maxEntries),
          ...(templates.length > 0
            ? {
                resource_templates: templates.slice(0, maxEntries).map((t) => ({
                  uri_template: t.uriTemplate,
                  name: t.name,
                  ...(t.description ? { description: t.description } : {}),
                })),
              }
            : {}),
          ...(resources.length > maxEntries || cursor ? { truncated: true } : {}),
        },
        isError: false,
        meta,
      };
    }
    case 'read_resource': {
      const result = await client.readResource({ uri: String(args.uri) }, options);
      const media: MediaNote[] = [];
      const parts = result.contents.map((content) => {
        if ('text' in content) return content.text;
        return describePart(
          { type: 'blob', data: content.blob, mimeType: content.mimeType ?? 'application/octet-stream' },
          media,
        );
      });
      return {
        output: cutText(parts.join('\n')),
        isError: false,
        meta: { ...meta, uri: String(args.uri), ...(media.length > 0 ? { media } : {}) },
      };
    }
    case 'list_prompts': {
      const prompts: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      for (let page = 0; page < maxPages && prompts.length < maxEntries; page++) {
        const result = await client.listPrompts(cursor ? { cursor } : undefined, options);
        for (const p of result.prompts) {
          prompts.push({
            name: p.name,
            ...(p.description ? { description: p.description } : {}),
            ...(p.arguments?.length
              ? {
                  arguments: p.arguments.map((a) => ({
                    name: a.name,
                    ...(a.description ? { description: a.description } : {}),
                    ...(a.required ? { required: true } : {}),
                  })),
                }
              : {}),
          });
        }
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return {
        output: {
          prompts: prompts.slice(0, maxEntries),
          ...(prompts.length > maxEntries || cursor ? { truncated: true } : {}),
        },
        isError: false,
        meta,
      };
    }
    case 'get_prompt': {
      const result = await client.getPrompt(
        {
          name: String(args.name),
          ...(args.arguments ? { arguments: args.arguments as Record<string, string> } : {}),
        },
        options,
      );
      const media: MediaNote[] = [];
      const messages = result.messages.map((m) => ({
        role: m.role,
        content: cutText(describePart(m.content as Record<string, unknown>, media)),
      }));
      return {
        output: { ...(result.description ? { description: result.description } : {}), messages },
        isError: false,
        meta: { ...meta, prompt: String(args.name), ...(media.length > 0 ? { media } : {}) },
      };
    }
  }
}
