/**
 * The JSON Schema (draft 2020-12) of agent configs: the one source of the format. The loader
 * (`@agentry/config`) validates uploads with it, the types in `agent-config.ts` are inferred from it,
 * and `configs/agent-config.schema.json` — the file editors and docs point to — is written from it by
 * `pnpm config-schema` (a test fails when the file is out of date).
 *
 * Runtime data for the server: browser code imports only the types (`import type`), never this.
 * `x-message` is not a JSON Schema keyword: it holds the plain-language rule the loader's issue
 * texts quote.
 */
export const agentConfigSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://agentry.dev/schemas/agent-config.schema.json',
  title: 'Agentry agent configuration',
  description:
    'One agent: who it is (basic_settings), when to do what (action_books) and the HTTP tools it may call (tools). Every key except basic_settings is optional.',
  type: 'object',
  additionalProperties: false,
  required: ['basic_settings'],
  properties: {
    $schema: { type: 'string', maxLength: 500 },
    basic_settings: { $ref: '#/$defs/basicSettings' },
    action_books: {
      type: 'array',
      maxItems: 100,
      items: { $ref: '#/$defs/actionBook' },
      default: [],
    },
    tools: {
      type: 'array',
      maxItems: 128,
      items: { $ref: '#/$defs/tool' },
      default: [],
    },
    model: { $ref: '#/$defs/model' },
    limits: { $ref: '#/$defs/limits' },
    tool_choice: {
      description: 'auto (default), none, required, or the name of one tool the model must call.',
      type: 'string',
      minLength: 1,
      maxLength: 64,
      default: 'auto',
    },
    parallel_tool_calls: { type: 'boolean', default: true },
    busy_policy: {
      description:
        "What a new message does while the conversation's previous run is still going: reject it (409 conversation_busy), enqueue it (it runs when the previous one ends), or interrupt (cancel the running one, then run).",
      enum: ['reject', 'enqueue', 'interrupt'],
      default: 'enqueue',
    },
    require_done_tool: {
      description: 'When true the run only ends when the model calls the built-in `done` tool.',
      type: 'boolean',
      default: false,
    },
    tool_protocol: {
      description:
        'How tools are offered to the model: native function calling, or JSON/XML in plain text for models without it.',
      enum: ['native', 'json', 'xml'],
      default: 'native',
    },
    context: {
      description:
        'Context variables the embedding application passes with each conversation, beyond the system ones (tenantId, agentId, conversationId/dialogId, chatbotId, userId).',
      type: 'array',
      maxItems: 32,
      items: { $ref: '#/$defs/contextVariable' },
      default: [],
    },
    widget: { $ref: '#/$defs/widget' },
    end_user: { $ref: '#/$defs/endUser' },
    webhooks: {
      description:
        'HTTPS callbacks when a run of this agent completes, fails, is cancelled, times out or waits for a person: signed per the Standard Webhooks spec with a tenant secret, sent at least once, retried with backoff.',
      type: 'array',
      maxItems: 10,
      items: { $ref: '#/$defs/webhook' },
    },
    mcp_servers: {
      description:
        'MCP servers whose tools the agent may call, named server__tool. Their tool lists are discovered when a version is created and cached with it.',
      type: 'array',
      maxItems: 16,
      items: { $ref: '#/$defs/mcpServer' },
    },
    skills: {
      description:
        "Sub-agents offered to the agent as tools named skill__<name>: each runs its own loop with its own settings, action books, tools and limits, inside the parent run's budgets.",
      type: 'array',
      maxItems: 16,
      items: { $ref: '#/$defs/skill' },
    },
    permissions: {
      description:
        "Rules for tool calls, checked in order; the first whose tool pattern and `when` match decides: allow (run it), ask (wait for a person's approval, like approval: always) or deny (never sent; the model gets the rule's message as a tool error). A call no rule matches follows its tool's own approval setting.",
      type: 'array',
      maxItems: 100,
      items: { $ref: '#/$defs/permission' },
    },
    flows: {
      description:
        "Fixed procedures (a leave request, a refund) run as state machines: started when the user's message matches a trigger pattern (no model call) or when the model calls the tool flow__<name>; they ask for slots, call tools, branch and reply, one step at a time, and hold the conversation until they end.",
      type: 'array',
      maxItems: 32,
      items: { $ref: '#/$defs/flow' },
    },
    knowledge: { $ref: '#/$defs/knowledge' },
  },
  $defs: {
    knowledge: {
      description:
        "Knowledge bases the agent answers from, with citations ([n] markers the answer's sources are attached to). mode tool (default): the model gets the tool search_knowledge({ query }) and searches when it needs to; mode auto: the user's message is searched before the model's first call of each run and the hits are put in its context (no extra model request).",
      type: 'object',
      additionalProperties: false,
      required: ['bases'],
      properties: {
        bases: {
          description: "The tenant's knowledge bases to search, by id or by name.",
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: { type: 'string', minLength: 1, maxLength: 120 },
        },
        mode: { enum: ['tool', 'auto'], default: 'tool' },
        top_k: {
          description: 'How many passages a search returns.',
          type: 'integer',
          minimum: 1,
          maximum: 20,
          default: 5,
        },
      },
    },
    permission: {
      type: 'object',
      additionalProperties: false,
      required: ['tool', 'action'],
      properties: {
        tool: {
          description:
            'A tool name, or a pattern where * stands for any run of characters: refund_*, crm__*, skill__*, *.',
          type: 'string',
          minLength: 1,
          maxLength: 128,
          pattern: '^[A-Za-z0-9_*-]+$',
          'x-message': 'must be a tool name or a pattern of letters, digits, _, - and * (at most 128 characters)',
        },
        when: {
          description:
            'JSON Schema over the call\'s arguments: the rule applies only to calls whose arguments it accepts (e.g. {"properties": {"amount": {"minimum": 1000}}, "required": ["amount"]}). Default: every call of the tool.',
          $ref: '#/$defs/schemaNode',
        },
        action: { enum: ['allow', 'ask', 'deny'] },
        message: {
          description:
            'deny only: what the model is told instead of the result. Default: "A permission rule does not allow this tool call. Do not try it again; tell the user."',
          type: 'string',
          minLength: 1,
          maxLength: 1000,
        },
      },
    },
    flow: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'description', 'steps'],
      properties: {
        name: {
          description: 'Lowercase letters, digits and _; the model sees the flow as the tool flow__<name>.',
          type: 'string',
          pattern: '^[a-z][a-z0-9_]{0,47}$',
          'x-message': 'must start with a lowercase letter and hold only lowercase letters, digits and _ (at most 48)',
        },
        description: {
          description: 'What the flow does: the model reads it to decide when to start the flow.',
          type: 'string',
          minLength: 1,
          maxLength: 1024,
        },
        triggers: {
          type: 'object',
          additionalProperties: false,
          properties: {
            patterns: {
              description:
                "RE2 patterns matched against the user's message before any model is asked; the first flow with a matching pattern starts. (?i) makes a pattern case-insensitive.",
              type: 'array',
              maxItems: 20,
              items: { type: 'string', minLength: 1, maxLength: 500 },
            },
          },
        },
        slots: {
          description:
            'The values the flow collects, each with a JSON Schema (and optionally a pattern that extracts it).',
          type: 'object',
          maxProperties: 32,
          propertyNames: { pattern: '^[a-z][a-z0-9_]{0,47}$' },
          additionalProperties: { $ref: '#/$defs/flowSlot' },
        },
        steps: {
          description: 'Run in order unless a step says where to go next (next, yes/no, branches, on_error).',
          type: 'array',
          minItems: 1,
          maxItems: 64,
          items: { $ref: '#/$defs/flowStep' },
        },
        allow_exit: {
          description:
            'Whether the user may leave the flow: with an exit phrase, or (when a slot is extracted by the model) by changing the subject, after which the model answers the message.',
          type: 'boolean',
          default: true,
        },
        exit_phrases: {
          description: 'Messages that leave the flow when allow_exit is true (compared case-insensitively, trimmed).',
          type: 'array',
          maxItems: 20,
          items: { type: 'string', minLength: 1, maxLength: 100 },
        },
        exit_message: {
          description: 'Said when the user leaves the flow with an exit phrase.',
          type: 'string',
          maxLength: 2000,
        },
        max_attempts: {
          description: 'How many times a slot or a confirmation is asked before the flow gives up.',
          type: 'integer',
          minimum: 1,
          maximum: 10,
          default: 3,
        },
        failure_message: {
          description: 'Said when the flow gives up (a slot never understood, a tool failing without on_error).',
          type: 'string',
          maxLength: 2000,
        },
      },
    },
    flowSlot: {
      type: 'object',
      additionalProperties: false,
      required: ['schema'],
      properties: {
        schema: { $ref: '#/$defs/schemaNode' },
        description: { type: 'string', maxLength: 500 },
        pattern: {
          description:
            "RE2 pattern that extracts the value from the user's message (the first capture group, or the whole match), with no model call. Without one, the model extracts the value.",
          type: 'string',
          minLength: 1,
          maxLength: 500,
        },
      },
    },
    flowStep: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'type'],
      properties: {
        id: {
          type: 'string',
          pattern: '^[a-z][a-z0-9_]{0,47}$',
          'x-message': 'must start with a lowercase letter and hold only lowercase letters, digits and _ (at most 48)',
        },
        type: {
          description:
            "ask (a slot), tool (call one of the agent's tools), reply (say something), branch (go where a condition holds), confirm (a yes/no question), handoff (pass to a person) or end.",
          enum: ['ask', 'tool', 'reply', 'branch', 'confirm', 'handoff', 'end'],
        },
        slot: { description: 'ask: the slot to fill.', type: 'string', maxLength: 48 },
        prompt: {
          description: 'ask, confirm: the question, a template over the slots ({{dates}}) and context ({{context.x}}).',
          type: 'string',
          minLength: 1,
          maxLength: 2000,
        },
        message: {
          description: 'reply, end, handoff: what to say (a template like prompt).',
          type: 'string',
          maxLength: 4000,
        },
        tool: { description: "tool: the name of one of the agent's tools.", type: 'string', maxLength: 64 },
        arguments: {
          description:
            'tool: the call\'s arguments; string values are templates ("{{amount}}" keeps the slot\'s type).',
          type: 'object',
          maxProperties: 64,
        },
        save: {
          description: 'tool: slots set from the result, each a JSON pointer into it (e.g. {"ticket": "/id"}).',
          type: 'object',
          maxProperties: 16,
          propertyNames: { pattern: '^[a-z][a-z0-9_]{0,47}$' },
          additionalProperties: { type: 'string', maxLength: 500 },
        },
        on_error: { description: 'tool: the step to go to when the call fails.', type: 'string', maxLength: 48 },
        branches: {
          description:
            'branch: conditions tried in order, each a JSON Schema over the slots and the last tool result ({"properties": {"days": {"minimum": 5}}, "required": ["days"]}).',
          type: 'array',
          minItems: 1,
          maxItems: 16,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['when', 'goto'],
            properties: {
              when: { $ref: '#/$defs/schemaNode' },
              goto: { type: 'string', maxLength: 48 },
            },
          },
        },
        else: {
          description: 'branch: where to go when no condition holds (default: the next step).',
          type: 'string',
          maxLength: 48,
        },
        yes: { description: 'confirm: the step after a yes (default: the next step).', type: 'string', maxLength: 48 },
        no: { description: 'confirm: the step after a no (default: end the flow).', type: 'string', maxLength: 48 },
        yes_label: { description: 'confirm: the yes button.', type: 'string', minLength: 1, maxLength: 40 },
        no_label: { description: 'confirm: the no button.', type: 'string', minLength: 1, maxLength: 40 },
        next: { description: 'The step after this one (default: the one below it).', type: 'string', maxLength: 48 },
      },
    },
    mcpServer: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          type: 'string',
          maxLength: 32,
          pattern: '^[A-Za-z][A-Za-z0-9-]*(_[A-Za-z0-9-]+)*$',
          'x-message':
            'must start with a letter and contain only letters, digits, - and single _ (at most 32 characters)',
        },
        transport: {
          description:
            'http = Streamable HTTP, sse = the older HTTP+SSE transport, stdio = a server the platform operator defined (named by `server`; a tenant config never gives a command).',
          enum: ['http', 'sse', 'stdio'],
          default: 'http',
        },
        server: {
          description: 'stdio only: the name of a stdio MCP server the platform operator defined (MCP_STDIO_SERVERS).',
          type: 'string',
          maxLength: 64,
          pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
          'x-message': 'must start with a letter and contain only letters, digits, _ and - (at most 64 characters)',
        },
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        headers: {
          description: 'Header name → template; only {{secrets.X}} placeholders.',
          type: 'object',
          maxProperties: 32,
          propertyNames: {
            pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$",
            'x-message': 'must be a valid HTTP header name',
          },
          additionalProperties: { type: 'string', maxLength: 4096 },
        },
        timeout: {
          description: 'Seconds per request (connect, discovery, each tool call); default limits.tool_timeout.',
          type: 'number',
          minimum: 0.1,
          maximum: 120,
        },
        enabled: { type: 'boolean', default: true },
        tools: {
          description: 'Only these tools of the server (its own names, without the server__ prefix); default all.',
          type: 'array',
          maxItems: 128,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 64 },
        },
        expose_resources: {
          description:
            'Offer the tools server__list_resources and server__read_resource (when the server has resources).',
          type: 'boolean',
          default: false,
        },
        expose_prompts: {
          description: 'Offer the tools server__list_prompts and server__get_prompt (when the server has prompts).',
          type: 'boolean',
          default: false,
        },
      },
    },
    skill: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'description', 'basic_settings'],
      properties: {
        name: {
          type: 'string',
          pattern: '^[A-Za-z][A-Za-z0-9_-]{0,56}$',
          'x-message': 'must start with a letter and contain only letters, digits, _ and - (at most 57 characters)',
        },
        description: {
          description: 'What the parent agent reads to decide when to hand a request to this skill.',
          type: 'string',
          minLength: 1,
          maxLength: 1024,
        },
        basic_settings: { $ref: '#/$defs/basicSettings' },
        action_books: {
          type: 'array',
          maxItems: 100,
          items: { $ref: '#/$defs/actionBook' },
          default: [],
        },
        tools: {
          type: 'array',
          maxItems: 128,
          items: { $ref: '#/$defs/tool' },
          default: [],
        },
        limits: { $ref: '#/$defs/limits' },
        mcp_servers: {
          description: "Names of the config's mcp_servers whose tools (as discovered at publish) this skill may call.",
          type: 'array',
          maxItems: 16,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 32 },
        },
        skills: {
          description:
            'Names of other skills of the config this skill may call (skills nest at most 2 deep, without cycles).',
          type: 'array',
          maxItems: 16,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 57 },
        },
      },
    },
    identifier: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
      'x-message': 'must start with a letter or _ and contain only letters, digits and _ (at most 64 characters)',
    },
    basicSettings: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        description: { type: 'string', maxLength: 2000 },
        background: { type: 'string', maxLength: 8000 },
        language: { type: 'string', maxLength: 50 },
        tone: { type: 'string', maxLength: 200 },
        chatbot_id: { type: 'string', maxLength: 200 },
        instructions: {
          description: 'Extra free-form rules appended to the system prompt.',
          type: 'string',
          maxLength: 8000,
        },
      },
    },
    actionBook: {
      type: 'object',
      additionalProperties: false,
      required: ['condition', 'action'],
      properties: {
        condition: { type: 'string', minLength: 1, maxLength: 1000 },
        action: { type: 'string', minLength: 1, maxLength: 2000 },
        tools: {
          type: 'array',
          maxItems: 20,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 64 },
          default: [],
        },
      },
    },
    model: {
      type: 'object',
      additionalProperties: false,
      properties: {
        provider: { enum: ['openai', 'anthropic', 'openai_compatible'] },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        max_output_tokens: { type: 'integer', minimum: 1, maximum: 200000 },
        api_key_secret: {
          description:
            "Name of a tenant secret holding this agent's own API key for the provider (PUT /v1/secrets/{name}); default: the platform's key.",
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
        },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        max_steps: {
          description: 'Model calls per run.',
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 10,
        },
        max_tool_calls: {
          description: 'Tool calls per run.',
          type: 'integer',
          minimum: 0,
          maximum: 500,
          default: 50,
        },
        max_tokens: {
          description: 'Input + output tokens per run.',
          type: 'integer',
          minimum: 1000,
          maximum: 10000000,
          default: 200000,
        },
        run_timeout: {
          description: 'Seconds per run.',
          type: 'number',
          minimum: 1,
          maximum: 3600,
          default: 300,
        },
        tool_timeout: {
          description: 'Default seconds per tool call when a tool sets no endpoint.timeout.',
          type: 'number',
          minimum: 0.1,
          maximum: 120,
          default: 30,
        },
        waiting_timeout: {
          description:
            "Seconds a run may wait for a person (an approval or a client tool result) before it ends as timed_out. Default: the platform's WAITING_RUN_TTL_SECONDS (24 h). The agent's own limits only; not for skills.",
          type: 'integer',
          minimum: 1,
          maximum: 31536000,
        },
        max_queued_runs: {
          description:
            "Runs one conversation may hold queued (waiting for its active run to end) before a new message is refused with 429 conversation_queue_full. The agent's own limits only; not for skills.",
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          default: 10,
        },
      },
    },
    contextVariable: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { $ref: '#/$defs/identifier' },
        type: { enum: ['string', 'number', 'integer', 'boolean'], default: 'string' },
        required: { type: 'boolean', default: false },
        description: { type: 'string', maxLength: 500 },
        visible_to_model: {
          description: 'When true the value is shown to the model; otherwise only tools see it.',
          type: 'boolean',
          default: false,
        },
      },
    },
    endUser: {
      description:
        "Values of the signed end-user token (X-End-User-Token, HS256 with the tenant's END_USER_JWT_SECRET) that tools may send as {{user.<claim>}} and, with forward_token, {{user.token}}. They reach the tool's endpoint only: never the model, the transcript, run events or logs.",
      type: 'object',
      additionalProperties: false,
      required: ['claims'],
      properties: {
        claims: {
          description:
            'The token claims tools may read as {{user.<claim>}} (strings, numbers and booleans; other values are left out).',
          type: 'array',
          maxItems: 32,
          uniqueItems: true,
          items: {
            type: 'string',
            pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
            not: { enum: ['token'] },
            'x-message':
              'must be a claim name of letters, digits and _ (at most 64), not token (that is {{user.token}})',
          },
        },
        forward_token: {
          description:
            'When true tools may send the verified token itself as {{user.token}} (e.g. "Authorization": "Bearer {{user.token}}").',
          type: 'boolean',
          default: false,
        },
        sign_in_message: {
          description:
            'What the model is told when a tool needs a user value but the conversation has no verified end user (or the token expired).',
          type: 'string',
          minLength: 1,
          maxLength: 500,
          default: 'This needs you to sign in first.',
        },
      },
    },
    widget: {
      type: 'object',
      additionalProperties: false,
      properties: {
        title: { type: 'string', maxLength: 100 },
        greeting: { type: 'string', maxLength: 1000 },
        colors: {
          type: 'object',
          additionalProperties: false,
          properties: {
            primary: { $ref: '#/$defs/color' },
            background: { $ref: '#/$defs/color' },
            text: { $ref: '#/$defs/color' },
          },
        },
        position: { enum: ['bottom-right', 'bottom-left'], default: 'bottom-right' },
        suggested_questions: {
          type: 'array',
          maxItems: 10,
          items: { type: 'string', minLength: 1, maxLength: 200 },
        },
        browser_js_eval: {
          description:
            "Offer the widget's built-in client tool browser_js_eval: the visitor sees the code and clicks Run; it runs in a sandboxed iframe (no access to the page) with a 5 s timeout.",
          type: 'boolean',
          default: false,
        },
        allowed_origins: {
          type: 'array',
          maxItems: 50,
          uniqueItems: true,
          items: {
            type: 'string',
            maxLength: 300,
            pattern: '^https?://(\\*\\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$',
            'x-message': 'must be an origin such as https://www.example.com (no path; *.example.com allowed)',
          },
        },
      },
    },
    webhook: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'events', 'signing_secret'],
      properties: {
        url: {
          description:
            "Where to POST the event (http or https; private addresses only when the tenant's egress allowlist names them).",
          type: 'string',
          minLength: 1,
          maxLength: 2048,
        },
        events: {
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { enum: ['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out', 'run.waiting'] },
        },
        signing_secret: {
          description:
            'Name of the tenant secret (PUT /v1/secrets/{name}) that signs each delivery: `whsec_<base64>` as in the Standard Webhooks spec, or any other value used as raw bytes.',
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
          'x-message': 'must be a secret name: a letter or _, then letters, digits and _ (at most 64 characters)',
        },
        headers: {
          description: 'Extra request headers; values may hold {{secrets.X}} placeholders.',
          type: 'object',
          maxProperties: 16,
          propertyNames: {
            pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$",
            'x-message': 'must be a valid HTTP header name',
          },
          additionalProperties: { type: 'string', maxLength: 4096 },
        },
        enabled: { type: 'boolean', default: true },
      },
    },
    color: {
      type: 'string',
      pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$',
      'x-message': 'must be a hex colour such as #1a73e8',
    },
    tool: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'description'],
      properties: {
        name: {
          type: 'string',
          pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$',
          'x-message': 'must start with a letter and contain only letters, digits, _ and - (at most 64 characters)',
        },
        description: { type: 'string', minLength: 1, maxLength: 1024 },
        type: { enum: ['http', 'client'], default: 'http' },
        approval: { enum: ['never', 'always'], default: 'never' },
        parameters: { $ref: '#/$defs/parameters' },
        endpoint: { $ref: '#/$defs/endpoint' },
        response: { $ref: '#/$defs/response' },
        idempotent: {
          description:
            'Whether sending the same call twice has the effect of sending it once (the endpoint honours the Idempotency-Key header, or the method is naturally idempotent). Default: true for GET, HEAD, PUT and DELETE. An idempotent call whose outcome a crash left unknown is sent again with the same Idempotency-Key; a non-idempotent one is reported to the model as unknown.',
          type: 'boolean',
        },
        retries: {
          description:
            'Extra attempts after a network error, 429 or 5xx; only for idempotent tools (GET, HEAD, PUT, DELETE, or idempotent: true).',
          type: 'integer',
          minimum: 0,
          maximum: 3,
          default: 0,
        },
        cache: {
          description:
            'Reuse a successful (2xx) response for identical requests (same method, URL, headers and body, per tenant) for `ttl` seconds. Only for reads: GET and HEAD tools, or a POST or PATCH tool declared `idempotent: true` (a search sent as POST); refused for PUT and DELETE. A response with `Cache-Control: no-store` or `no-cache` is never stored, and `max-age` shortens the TTL.',
          type: 'object',
          additionalProperties: false,
          required: ['ttl'],
          properties: {
            ttl: { description: 'Seconds a stored response is reused.', type: 'integer', minimum: 1, maximum: 86400 },
          },
        },
      },
    },
    endpoint: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'], default: 'GET' },
        headers: {
          type: 'object',
          maxProperties: 32,
          propertyNames: {
            pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$",
            'x-message': 'must be a valid HTTP header name',
          },
          additionalProperties: { type: 'string', maxLength: 4096 },
        },
        query_params: {
          type: 'object',
          maxProperties: 50,
          propertyNames: { minLength: 1, maxLength: 100 },
          additionalProperties: { type: ['string', 'number', 'boolean'] },
        },
        body: { description: 'JSON request body template.', type: ['object', 'array'] },
        timeout: { description: 'Seconds.', type: 'number', minimum: 0.1, maximum: 120 },
      },
    },
    response: {
      type: 'object',
      additionalProperties: false,
      properties: {
        max_bytes: {
          description: 'The tool output shown to the model is cut to this many bytes.',
          type: 'integer',
          minimum: 64,
          maximum: 1000000,
          default: 16000,
        },
        fields: {
          description: 'Keep only these fields of a JSON response (dot paths such as order.status).',
          type: 'array',
          maxItems: 50,
          uniqueItems: true,
          items: {
            type: 'string',
            pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
            'x-message': 'must be a dot path such as order.status',
          },
        },
        ephemeral: {
          description:
            'Only the last N outputs of this tool stay visible to the model; older ones are replaced by a short note.',
          type: 'integer',
          minimum: 1,
          maximum: 100,
        },
      },
    },
    parameters: {
      description: 'JSON Schema of the tool arguments (a safe subset). Its top level is an object.',
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: {
        type: { const: 'object' },
        description: { type: 'string', maxLength: 1024 },
        title: { type: 'string', maxLength: 200 },
        properties: {
          type: 'object',
          maxProperties: 64,
          propertyNames: {
            pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
            not: { enum: ['context', 'secrets', 'constructor', 'prototype', '__proto__'] },
            'x-message':
              'must start with a letter or _, contain only letters, digits and _, and not be context, secrets, constructor, prototype or __proto__',
          },
          additionalProperties: { $ref: '#/$defs/schemaNode' },
        },
        required: { $ref: '#/$defs/stringList' },
        additionalProperties: { type: 'boolean' },
        $defs: {
          type: 'object',
          maxProperties: 32,
          additionalProperties: { $ref: '#/$defs/schemaNode' },
        },
      },
    },
    stringList: {
      type: 'array',
      maxItems: 64,
      uniqueItems: true,
      items: { type: 'string', maxLength: 64 },
    },
    schemaNode: {
      type: 'object',
      additionalProperties: false,
      properties: {
        type: {
          anyOf: [
            { $ref: '#/$defs/jsonType' },
            {
              type: 'array',
              minItems: 1,
              maxItems: 7,
              uniqueItems: true,
              items: { $ref: '#/$defs/jsonType' },
            },
          ],
        },
        description: { type: 'string', maxLength: 1024 },
        title: { type: 'string', maxLength: 200 },
        enum: { type: 'array', minItems: 1, maxItems: 200 },
        const: {},
        default: {},
        examples: { type: 'array', maxItems: 10 },
        minimum: { type: 'number' },
        maximum: { type: 'number' },
        exclusiveMinimum: { type: 'number' },
        exclusiveMaximum: { type: 'number' },
        multipleOf: { type: 'number', exclusiveMinimum: 0 },
        minLength: { type: 'integer', minimum: 0 },
        maxLength: { type: 'integer', minimum: 0 },
        pattern: { type: 'string', maxLength: 500 },
        format: {
          enum: ['date', 'time', 'date-time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid'],
        },
        minItems: { type: 'integer', minimum: 0 },
        maxItems: { type: 'integer', minimum: 0 },
        uniqueItems: { type: 'boolean' },
        items: { $ref: '#/$defs/schemaNode' },
        properties: {
          type: 'object',
          maxProperties: 64,
          propertyNames: { not: { enum: ['constructor', 'prototype', '__proto__'] } },
          additionalProperties: { $ref: '#/$defs/schemaNode' },
        },
        required: { $ref: '#/$defs/stringList' },
        additionalProperties: { type: 'boolean' },
        anyOf: { $ref: '#/$defs/schemaList' },
        oneOf: { $ref: '#/$defs/schemaList' },
        allOf: { $ref: '#/$defs/schemaList' },
        not: { $ref: '#/$defs/schemaNode' },
        $ref: {
          type: 'string',
          pattern: '^#/\\$defs/[A-Za-z0-9_-]{1,64}$',
          'x-message': 'may only point inside these parameters, like #/$defs/address',
        },
      },
    },
    schemaList: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: { $ref: '#/$defs/schemaNode' },
    },
    jsonType: { enum: ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'] },
  },
} as const;
