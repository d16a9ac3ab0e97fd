import type { ToolImportBody, ToolImportResult } from '@agentry/contract/schemas';
import { apiFetch } from './client.ts';

export const toolsApi = {
  /** `POST /v1/tools/import`: tool configs from an OpenAPI document or a cURL command; nothing is saved. */
  import: (body: ToolImportBody, signal?: AbortSignal) =>
    apiFetch<ToolImportResult>('POST', '/v1/tools/import', body, signal),
};
