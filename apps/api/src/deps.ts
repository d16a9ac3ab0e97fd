import type { Db } from '@agentry/db';
import type { JobQueue } from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';
import type { ModelProviderSettings } from '@agentry/runner';
import type { Logger } from 'pino';

/** What the HTTP layer needs; built by `main.ts` (or a test) for either run mode. */
export interface ApiDeps {
  db: Db;
  pingDatabase(): Promise<void>;
  queue: JobQueue;
  events: RunEventBus;
  control: RunControl;
  models: ModelProviderSettings;
  platformAdminToken?: string;
  /** How long `POST …/messages` waits for the run before answering 202. */
  runWaitMs: number;
  logger: Logger;
}
