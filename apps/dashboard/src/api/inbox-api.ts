import type {
  AssignBody,
  Availability,
  AvailabilityBody,
  BusinessHours,
  BusinessHoursBody,
  ConversationEvent,
  HandoffBody,
  HandoffResult,
  HumanMessageBody,
  InboxList,
  Message,
  NoteBody,
  ReleaseBody,
} from '@agentry/contract/schemas';
import { apiFetch } from './client.ts';

const enc = encodeURIComponent;

/** `GET /v1/conversations/{id}/handoff-history`. */
export interface ConversationEventList {
  object: 'list';
  data: ConversationEvent[];
}
const conv = (id: string, tail: string) => `/v1/conversations/${enc(id)}/${tail}`;

/** The handoff state the claim, release and resolve routes answer with. */
export type HandoffStateView = HandoffResult['state'];

/** Issue 21: the inbox, people's part of a conversation, availability and business hours. */
export const inboxApi = {
  list: () => apiFetch<InboxList>('GET', '/v1/inbox?filter=all'),
  history: (id: string) => apiFetch<ConversationEventList>('GET', conv(id, 'handoff-history')),
  /** A member asks for a person (past availability: they are taking it over themselves next). */
  handoff: (id: string, body: HandoffBody) => apiFetch<HandoffResult>('POST', conv(id, 'handoff'), body),
  claim: (id: string, body: AssignBody = {}) => apiFetch<HandoffStateView>('POST', conv(id, 'assign'), body),
  reply: (id: string, content: string) =>
    apiFetch<Message>('POST', conv(id, 'human-messages'), { content } satisfies HumanMessageBody),
  note: (id: string, content: string) =>
    apiFetch<ConversationEvent>('POST', conv(id, 'notes'), { content } satisfies NoteBody),
  release: (id: string, note?: string) =>
    apiFetch<HandoffStateView>('POST', conv(id, 'release'), (note ? { note } : {}) satisfies ReleaseBody),
  resolve: (id: string) => apiFetch<HandoffStateView>('POST', conv(id, 'resolve'), {} satisfies ReleaseBody),
  availability: () => apiFetch<Availability>('GET', '/v1/inbox/availability'),
  setAvailable: (available: boolean) =>
    apiFetch<Availability>('PUT', '/v1/inbox/availability', { available } satisfies AvailabilityBody),
  businessHours: () => apiFetch<BusinessHours>('GET', '/v1/inbox/business-hours'),
  setBusinessHours: (body: BusinessHoursBody) => apiFetch<BusinessHours>('PUT', '/v1/inbox/business-hours', body),
};
