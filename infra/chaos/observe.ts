/**
 * After the load: waits (bounded) until every run the suite caused is final, then reads back what
 * the checks compare against: each run, each conversation's transcript and a full replay of each
 * resumed stream's run.
 *
 * @example
 * const observations = await observe({ api, records, tools, http, exits, drainMs: 45_000 });
 */
import type { RecordingServer } from '@agentry/testkit';
import type { ApiClient, HttpStats } from './http-client.ts';
import { sleep } from './http-client.ts';
import { FINAL_STATUSES, type Observations, runIdsOf } from './invariants.ts';
import { type LoadRecords, replay } from './load.ts';
import type { ProcessExit } from './processes.ts';
import type { StreamEvent } from './sse.ts';

const STREAM_END_DEADLINE_MS = 15_000;

export async function observe(input: {
  api: ApiClient;
  records: LoadRecords;
  tools: RecordingServer;
  http: HttpStats;
  exits: ProcessExit[];
  drainMs: number;
}): Promise<Observations> {
  const { api, records } = input;
  const until = Date.now() + input.drainMs;
  let transcripts = await readTranscripts(api, records);
  const runs = new Map<string, unknown>();
  // Polls until every run is final or the drain deadline passes; messages the client gave up on
  // may still have made a run, found in the transcripts (read again each round).
  for (let round = 0; round < 10_000; round++) {
    const ids = [...new Set(runIdsOf({ records, transcripts }).values())];
    const open = ids.filter(
      (id) => !FINAL_STATUSES.has((runs.get(id) as { status?: string } | undefined)?.status ?? ''),
    );
    for (const id of open) runs.set(id, await readJson(api, `/v1/runs/${id}`));
    const stillOpen = open.filter(
      (id) => !FINAL_STATUSES.has((runs.get(id) as { status?: string } | undefined)?.status ?? ''),
    );
    if (stillOpen.length === 0 || Date.now() > until) break;
    await sleep(1000);
    transcripts = await readTranscripts(api, records);
  }
  transcripts = await readTranscripts(api, records);
  const replays = new Map<string, StreamEvent[]>();
  for (const stream of records.streams.filter((s) => s.resumed))
    replays.set(stream.runId, stream.replay ?? (await replay(api, stream.runId)));
  return {
    records,
    runs: runs as Observations['runs'],
    transcripts,
    replays,
    toolRequests: [...input.tools.requests],
    http: input.http,
    exits: input.exits,
    streamEndDeadlineMs: STREAM_END_DEADLINE_MS,
  };
}

async function readJson(api: ApiClient, path: string): Promise<unknown> {
  const res = await api.request('GET', path, { retryForMs: 10_000 }).catch(() => undefined);
  return res?.status === 200 ? res.json : undefined;
}

async function readTranscripts(api: ApiClient, records: LoadRecords): Promise<Observations['transcripts']> {
  const transcripts: Observations['transcripts'] = new Map();
  for (const c of records.conversations) {
    const conversation = (await readJson(api, `/v1/conversations/${c.id}`)) as { messages?: unknown[] } | undefined;
    transcripts.set(c.id, conversation?.messages);
  }
  return transcripts;
}
