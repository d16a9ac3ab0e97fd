import { conversationsApi } from './conversations-api.ts';
import type { Run } from './types.ts';

/**
 * How the playground gets a run's result. Today: the blocking POST, then polling while the API
 * answers 202. SSE (`GET /v1/runs/{id}/events`) will be another implementation of this interface
 * that calls `onUpdate` per event; the playground does not change.
 */
export interface ChatTransport {
  send(conversationId: string, content: string, onUpdate: (run: Run) => void): Promise<Run>;
}

const POLL_MS = 1000;
const isPending = (run: Run) => run.status === 'queued' || run.status === 'running';

export const pollingTransport: ChatTransport = {
  async send(conversationId, content, onUpdate) {
    let run = await conversationsApi.send(conversationId, content);
    onUpdate(run);
    while (isPending(run)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      run = await conversationsApi.run(run.id);
      onUpdate(run);
    }
    return run;
  },
};
