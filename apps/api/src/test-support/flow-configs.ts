import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './harness.ts';

/** The example leave-request agent of `configs/`, its tool pointed at the recording server. */
export function leaveConfig(endpoint: string): Record<string, any> {
  const config = JSON.parse(readFileSync(join(repoRoot, 'configs/leave-request.json'), 'utf8'));
  config.tools[0].endpoint.url = `${endpoint}/leave-requests`;
  config.tools[0].endpoint.headers = {};
  // A slot only the model can read, for the model-extraction cases.
  config.flows.push({
    name: 'feedback',
    description: 'Collect a rating of the service from 1 to 5.',
    triggers: { patterns: ['(?i)^give feedback$'] },
    slots: { rating: { schema: { type: 'integer', minimum: 1, maximum: 5 }, description: 'the rating' } },
    steps: [
      { id: 'ask_rating', type: 'ask', slot: 'rating', prompt: 'How would you rate us from 1 to 5?' },
      { id: 'thanks', type: 'end', message: 'Thanks for the {{rating}}!' },
    ],
  });
  return config;
}
