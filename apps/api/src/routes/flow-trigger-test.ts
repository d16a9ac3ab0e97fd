import { type FlowConfig, linearPatternError } from '@agentry/config';
import { FlowTriggerTestBody } from '@agentry/contract/schemas';
import { errors } from '@agentry/errors';
import { compileFlows, matchTrigger } from '@agentry/flows';
import { Hono } from 'hono';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, ref } from '../http/openapi.ts';

/**
 * The trigger tester of the flow editor: whether a sentence would start a flow, matched by the
 * engine that runs flows (RE2, first matching pattern), so the editor never guesses.
 */
export function flowTriggerTestRoute() {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.post(
    '/trigger-test',
    doc({
      operationId: 'testFlowTrigger',
      tag: 'Agents',
      summary: "Whether a sentence matches a flow's trigger patterns",
      description:
        'Matches the text against the patterns as a run would (RE2, in order) and names the first pattern that matched. A pattern RE2 cannot run is a 422 naming it (`/patterns/<i>`).',
      auth: 'tenant',
      body: {
        schema: FlowTriggerTestBody,
        example: { patterns: ['(?i)\\b(leave|time off) request\\b'], text: 'I want to make a leave request' },
      },
      responses: { 200: { description: 'Whether the text starts the flow', schema: ref('FlowTriggerTest') } },
    }),
  );
  app.post('/trigger-test', async (c) => {
    const body = await readJson(c, FlowTriggerTestBody);
    const issues = body.patterns.flatMap((pattern, i) => {
      const problem = linearPatternError(pattern);
      return problem
        ? [
            {
              path: `/patterns/${i}`,
              code: 'unsupported_pattern',
              message: `patterns[${i}] cannot run safely (${problem})`,
              hint: 'patterns use RE2 syntax: look-arounds and back-references are not supported',
            },
          ]
        : [];
    });
    if (issues.length > 0) throw errors.validation('A trigger pattern cannot run', issues);
    // A throwaway flow per request (compileFlows caches by array identity, so nothing is kept).
    const flow: FlowConfig = {
      name: 'trigger_test',
      description: 'trigger test',
      triggers: { patterns: body.patterns },
      steps: [{ id: 'end', type: 'end' }],
    };
    const match = matchTrigger(compileFlows([flow]), body.text);
    return c.json(match ? { matches: true, pattern: match.pattern } : { matches: false });
  });
  return app;
}
