import { AvailabilityBody, BusinessHoursBody } from '@agentry/contract/schemas';
import {
  getBusinessHours,
  type InboxEntry,
  isId,
  listInbox,
  listMemberAvailability,
  setBusinessHours,
  setMemberAvailability,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { businessHoursIssues, inboxStreamKey, isWithinBusinessHours } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { streamLiveEvents } from '../http/live-stream.ts';
import { doc, ref, SSE_SCHEMA } from '../http/openapi.ts';
import { acquireEventStream } from '../http/stream-slots.ts';
import { handoffView } from '../http/views.ts';

/** The inbox shows at most this many conversations (oldest waiting first): a queue, not an archive. */
const INBOX_LIMIT = 200;
const FILTERS = ['all', 'waiting', 'mine'] as const;

function inboxItemView(entry: InboxEntry, names: Map<string, string>, now: number) {
  const { conversation } = entry;
  const since = conversation.modeChangedAt ?? conversation.updatedAt;
  return {
    object: 'inbox_item' as const,
    conversation_id: conversation.id,
    agent_id: conversation.agentId,
    ...handoffView(conversation),
    assigned_name: conversation.assignedTo ? (names.get(conversation.assignedTo) ?? null) : null,
    waiting_seconds: Math.max(0, Math.floor((now - since.getTime()) / 1000)),
    unread_count: entry.unanswered,
    last_message: entry.lastMessage,
  };
}

/**
 * Issue 21: the inbox of conversations people wait for or hold, its live stream, members'
 * availability and the tenant's business hours. Viewers read; editors and owners change.
 */
export function inboxRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/',
    doc({
      operationId: 'listInbox',
      tag: 'Inbox',
      summary: 'Conversations waiting for a person or held by one, longest waiting first',
      description:
        '`filter`: `waiting` (nobody holds them yet), `mine` (held by the signed-in member, or `user_id` with a secret key), `all` (both; default). At most 200, with the model’s summary, unread count and waiting time.',
      auth: 'tenant',
      query: {
        filter: { description: 'Which conversations', schema: { enum: [...FILTERS] } },
        agent_id: {
          description: 'Only this agent’s conversations',
          resource: 'agent',
          schema: { type: 'string', format: 'uuid' },
        },
        user_id: { description: '`mine` for a secret key: whose', schema: { type: 'string', format: 'uuid' } },
      },
      responses: { 200: { description: 'The inbox', schema: ref('InboxList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const { tenant, principal } = c.var;
    const filter = c.req.query('filter') ?? 'all';
    if (!(FILTERS as readonly string[]).includes(filter)) {
      throw errors.badRequest('invalid_query', `filter must be one of ${FILTERS.join(', ')}`);
    }
    const agentId = c.req.query('agent_id');
    const userId = principal.user?.id ?? c.req.query('user_id');
    const empty = { object: 'list', data: [], next_cursor: null };
    if ((agentId !== undefined && !isId(agentId)) || (filter === 'mine' && (!userId || !isId(userId)))) {
      return c.json(empty);
    }
    const rows = await listInbox(deps.db, tenant.id, {
      filter: filter as (typeof FILTERS)[number],
      limit: INBOX_LIMIT,
      ...(userId ? { userId } : {}),
      ...(agentId ? { agentId } : {}),
    });
    const members = await listMemberAvailability(deps.db, tenant.id);
    const names = new Map(members.map((m) => [m.userId, m.name]));
    const now = Date.now();
    return c.json({ object: 'list', data: rows.map((r) => inboxItemView(r, names, now)), next_cursor: null });
  });

  app.get(
    '/events',
    doc({
      operationId: 'followInbox',
      tag: 'Inbox',
      summary: 'The inbox live (SSE)',
      description:
        'Events from now on (resume with `Last-Event-ID`), each with the conversation’s `conversation_id`, `agent_id`, `mode`, `assigned_to`, `handoff` and `mode_changed_at`: `mode` (handoff requested, claimed, assigned, released, resolved: `from`, `to`, `by`, `by_name`, `note`, `assigned_name`), `visitor-message` and `human-message` (`message`), `note` (`note`).',
      auth: 'tenant',
      responses: { 200: { description: 'The events', schema: SSE_SCHEMA, contentType: 'text/event-stream' } },
      errors: ['too_many_streams'],
    }),
  );
  app.get('/events', async (c) => {
    const release = await acquireEventStream(c, deps);
    return streamLiveEvents(
      c,
      deps.events,
      inboxStreamKey(c.var.tenant.id),
      release,
      (event) => event,
      deps.liveStreams,
    );
  });

  app.get(
    '/availability',
    doc({
      operationId: 'getAvailability',
      tag: 'Inbox',
      summary: 'Who takes handoffs now',
      auth: 'tenant',
      responses: { 200: { description: 'Members’ availability', schema: ref('Availability') } },
    }),
  );
  app.get('/availability', async (c) => c.json(await availabilityView(deps, c.var.tenant.id)));

  app.put(
    '/availability',
    doc({
      operationId: 'putAvailability',
      tag: 'Inbox',
      summary: 'Mark a member available for handoffs, or not',
      description:
        'Without `user_id`: the signed-in member. Owners and secret keys may set anyone’s; editors only their own.',
      auth: 'tenant',
      body: { schema: AvailabilityBody, example: { available: true } },
      responses: { 200: { description: 'Members’ availability', schema: ref('Availability') } },
      errors: ['member_not_found', 'insufficient_role', 'validation_failed'],
    }),
  );
  app.put('/availability', async (c) => {
    const { tenant, principal } = c.var;
    const body = await readJson(c, AvailabilityBody);
    const userId = body.user_id ?? principal.user?.id;
    if (!userId) {
      throw errors.validation('An API key sets a member’s availability: name one', [
        { path: '/user_id', code: 'required', message: 'Give the member’s user id' },
      ]);
    }
    if (principal.user && principal.user.role !== 'owner' && userId !== principal.user.id) {
      throw errors.of({
        code: 'insufficient_role',
        message: 'Only owners set other members’ availability',
        category: 'user',
      });
    }
    if (!isId(userId) || !(await setMemberAvailability(deps.db, tenant.id, userId, body.available))) {
      throw errors.notFound('member', userId);
    }
    await audit(
      deps.db,
      c,
      'member.availability_changed',
      { type: 'member', id: userId },
      { available: body.available },
    );
    return c.json(await availabilityView(deps, tenant.id));
  });

  app.get(
    '/business-hours',
    doc({
      operationId: 'getBusinessHours',
      tag: 'Inbox',
      summary: 'When people answer handoffs',
      auth: 'tenant',
      responses: { 200: { description: 'The business hours', schema: ref('BusinessHours') } },
    }),
  );
  app.get('/business-hours', async (c) => c.json(businessHoursView(await getBusinessHours(deps.db, c.var.tenant.id))));

  app.put(
    '/business-hours',
    doc({
      operationId: 'putBusinessHours',
      tag: 'Inbox',
      summary: 'Set the tenant’s business hours',
      description:
        'Weekly intervals (`day` 0 = Sunday … 6, `start`/`end` as `HH:MM`, `24:00` for midnight) in an IANA `time_zone`; outside them a handoff tells the visitor the agent’s `unavailable_message`. `time_zone: null` clears them (always open); no intervals = never open.',
      auth: 'tenant',
      body: {
        schema: BusinessHoursBody,
        example: { time_zone: 'Europe/Berlin', intervals: [{ day: 1, start: '09:00', end: '17:00' }] },
      },
      responses: { 200: { description: 'The business hours', schema: ref('BusinessHours') } },
      errors: ['validation_failed'],
    }),
  );
  app.put('/business-hours', async (c) => {
    const body = await readJson(c, BusinessHoursBody);
    const hours = body.time_zone === null ? null : { time_zone: body.time_zone, intervals: body.intervals ?? [] };
    const issues = hours ? businessHoursIssues(hours) : [];
    if (issues.length > 0) {
      throw errors.validation(
        'The business hours are not valid',
        issues.map((i) => ({ ...i, code: 'invalid' })),
      );
    }
    await setBusinessHours(deps.db, c.var.tenant.id, hours);
    await audit(
      deps.db,
      c,
      'tenant.business_hours_changed',
      { type: 'tenant', id: c.var.tenant.id },
      {
        time_zone: hours?.time_zone ?? null,
        intervals: hours?.intervals.length ?? 0,
      },
    );
    return c.json(businessHoursView(hours));
  });

  return app;
}

function businessHoursView(
  hours: { time_zone: string; intervals: Array<{ day: number; start: string; end: string }> } | null,
) {
  return { object: 'business_hours', time_zone: hours?.time_zone ?? null, intervals: hours?.intervals ?? [] };
}

async function availabilityView(deps: ApiDeps, tenantId: string) {
  const members = await listMemberAvailability(deps.db, tenantId);
  const open = isWithinBusinessHours(await getBusinessHours(deps.db, tenantId), new Date());
  const someone = members.some((m) => m.available && (m.role === 'owner' || m.role === 'editor'));
  return {
    object: 'availability',
    members: members.map((m) => ({ user_id: m.userId, name: m.name, role: m.role, available: m.available })),
    open_now: open,
    available_now: open && someone,
  };
}
