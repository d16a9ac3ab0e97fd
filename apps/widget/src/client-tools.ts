import type { PendingInput } from '@agentry/contract/schemas';
import { evalInSandbox } from './sandbox.ts';

/** A page's handler for a `type: client` tool; its (awaited) value is the tool's result. */
export type ToolHandler = (args: unknown, info: { toolCallId: string; name: string }) => unknown;

/** The built-in tool; it always runs in the sandbox, never in a page handler. */
export const BUILTIN_EVAL = 'browser_js_eval';

/** Tool arguments arrive as JSON text or already parsed; text that is not JSON stays text. */
export function parseArgs(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A value shortened to 300 characters for a card's outcome line. */
export function short(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? 'null' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** The handlers registered with `Agentry.registerTool`, and the runner of one call. */
export class ClientTools {
  private readonly handlers = new Map<string, ToolHandler>();

  /** Registers a handler; the built-in eval cannot be replaced (it would leave the sandbox). */
  register(name: string, handler: ToolHandler): void {
    if (name === BUILTIN_EVAL) {
      console.warn(`[agentry] ${BUILTIN_EVAL} is built in and always runs sandboxed; the handler is ignored`);
      return;
    }
    if (typeof handler !== 'function') throw new TypeError('registerTool(name, handler): handler must be a function');
    this.handlers.set(name, handler);
  }

  /**
   * Runs one call. Every failure (no handler, a throwing handler, a sandbox error) becomes an
   * `is_error` result for the model rather than an exception, so the run can go on.
   * `sandboxHost` is where the eval's iframe goes; `evalEnabled` is the agent's opt-in.
   */
  async run(
    call: PendingInput,
    args: unknown,
    sandboxHost: ShadowRoot,
    evalEnabled: boolean,
  ): Promise<{ output: unknown; is_error?: boolean }> {
    try {
      if (call.name === BUILTIN_EVAL && evalEnabled) {
        const code = (args as { code?: unknown } | null)?.code;
        if (typeof code !== 'string')
          return { output: 'browser_js_eval needs a string `code` argument', is_error: true };
        const result = await evalInSandbox(code, sandboxHost);
        return result.ok ? { output: result.value ?? null } : { output: result.error ?? 'error', is_error: true };
      }
      const handler = this.handlers.get(call.name);
      if (!handler) return { output: `The page has no handler for the tool ${call.name}.`, is_error: true };
      const value = await handler(args, { toolCallId: call.tool_call_id, name: call.name });
      return { output: value === undefined ? null : value };
    } catch (error) {
      return { output: error instanceof Error ? error.message : String(error), is_error: true };
    }
  }
}
