import type { ToolExecutor } from '@agentry/agent';
import { argumentsValidator } from '@agentry/config';
import type { ToolFixture } from '@agentry/contract/schemas';
import type { ToolCallPart } from '@agentry/llm';

/** The code of a tool call in a test that no fixture answers. */
export const NO_FIXTURE = 'no_fixture';

/**
 * The first fixture for a call: same tool name, and arguments matching its `when` schema (none:
 * any arguments). Fixtures are stored data, so a malformed one is skipped rather than trusted.
 *
 * @example
 * fixtureFor(fixtures, { type: 'tool_call', id: 'c1', name: 'refund', arguments: { amount: 50 } });
 */
export function fixtureFor(
  fixtures: readonly unknown[],
  call: Pick<ToolCallPart, 'name' | 'arguments'>,
): ToolFixture | undefined {
  for (const candidate of fixtures) {
    const fixture = candidate as Partial<ToolFixture> | null;
    if (!fixture || typeof fixture !== 'object' || fixture.tool !== call.name) continue;
    if (fixture.when && typeof fixture.when === 'object') {
      try {
        if (!argumentsValidator(fixture.when)(call.arguments).ok) continue;
      } catch {
        continue;
      }
    }
    return fixture as ToolFixture;
  }
  return undefined;
}

/**
 * A test conversation's tools (issue 22): offered to the model exactly as the real ones (the same
 * definitions), but every call is answered from the case's fixtures and nothing is sent. A call
 * no fixture answers fails with `no_fixture`, so a test can never reach a real endpoint.
 *
 * @example
 * const tools = withToolFixtures(httpExecutor, conversation.test.fixtures);
 */
export function withToolFixtures(inner: ToolExecutor, fixtures: readonly unknown[]): ToolExecutor {
  return {
    definitions: () => inner.definitions(),
    async execute(call) {
      const fixture = fixtureFor(fixtures, call);
      if (!fixture) {
        return {
          output: {
            error: NO_FIXTURE,
            message: `This test has no fixture for ${call.name} with these arguments; nothing was sent`,
          },
          isError: true,
          errorCode: NO_FIXTURE,
          meta: { fixture: false },
        };
      }
      const output = fixture.output ?? (fixture.is_error ? { error: 'fixture_error' } : { ok: true });
      return {
        output,
        isError: fixture.is_error === true,
        ...(fixture.is_error ? { errorCode: 'fixture_error' } : {}),
        meta: { fixture: true },
      };
    },
  };
}
