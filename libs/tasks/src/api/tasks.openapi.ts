import { type ControllerOpenApi, jsonAnswer as json, type OpenApiParameter, PAGE_PARAMETERS, schemaRef as ref } from '@gensvc/http';
import { SETTLEMENT_STATUSES, TASK_STATUSES } from '../application/task-list/list-query';
import type { TasksController } from './tasks.controller';

/** The filters of the task and bill lists; `q` is a case-insensitive part of the title or of the ids named. */
const listFilters = (q: string): readonly OpenApiParameter[] => [
  ...PAGE_PARAMETERS,
  { name: 'q', description: q, schema: { type: 'string', maxLength: 200 } },
  { name: 'status', description: 'task status', schema: { type: 'string', maxLength: 40, enum: TASK_STATUSES } },
  { name: 'modality', description: 'task modality', schema: { type: 'string', maxLength: 40, enum: ['text', 'image', 'audio', 'video'] } },
  { name: 'settlement_status', description: 'settlement status', schema: { type: 'string', maxLength: 40, enum: SETTLEMENT_STATUSES } },
  { name: 'connection_id', description: 'the API key id or OAuth grant id that created the task', schema: { type: 'string', maxLength: 100 } },
  { name: 'created_from', description: 'creation time, inclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'created_before', description: 'creation time, exclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'min_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
  { name: 'max_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
];

/** `Prefer: wait=N` on task creation and task reads (CONTRACT §16). */
const PREFER_WAIT: OpenApiParameter = {
  name: 'Prefer',
  description:
    'wait=N (RFC 7240; N whole seconds, 1 to 60): answer once the task is finished (succeeded, failed or canceled, and settled) or after N seconds, whichever is first; the status and body are those without the header. Any other value is ignored (then no Preference-Applied).',
  schema: { type: 'string', maxLength: 200, examples: ['wait=30'] },
};
/** The answer header when the wait preference was honoured. */
const PREFERENCE_APPLIED = { 'Preference-Applied': { type: 'string', pattern: '^wait=([1-9]|[1-5][0-9]|60)$', description: 'present when Prefer: wait=N was honoured' } };

/** The OpenAPI declarations of tasks and bills, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const TASKS_OPENAPI: ControllerOpenApi<TasksController> = {
  /** POST /v1/tasks */
  createTask: {
    operationId: 'tasks.create',
    summary: 'Create a task from a quote (locks the quote, reserves max_amount)',
    tag: 'Tasks',
    description:
      'Retry with the same Idempotency-Key and the same body to get the same task (for at least 24 hours). A new creation needs a new quote and a new key. The same key with another body is 409 IDEMPOTENCY_CONFLICT, whose Location names the task the key created.',
    headers: [{ name: 'Idempotency-Key', required: true, description: 'one key per intended task', schema: { type: 'string', minLength: 8, maxLength: 150 } }, PREFER_WAIT],
    body: {
      name: 'TaskCreateRequest',
      refine: {
        quote_id: { minLength: 1 },
        title: { minLength: 1, maxLength: 200, description: '1 to 200 characters after trimming leading and trailing whitespace' },
      },
    },
    responses: { 202: { ...json('the task (queued; with Prefer: wait=N, as it is when finished or after N seconds)', ref('Task')), headers: PREFERENCE_APPLIED } },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INSUFFICIENT_FUNDS',
      'INSUFFICIENT_SCOPE',
      'NOT_FOUND',
      'IDEMPOTENCY_CONFLICT',
      'QUOTE_ALREADY_USED',
      'QUOTE_EXPIRED',
      'MODEL_UNAVAILABLE',
      'PAYLOAD_TOO_LARGE',
      'INTERNAL',
    ],
    errorHeaders: {
      409: {
        Location: {
          type: 'string',
          pattern: '^/v1/tasks/[^/]+$',
          description: 'with IDEMPOTENCY_CONFLICT: the task this Idempotency-Key created (absent when its creation was refused)',
        },
      },
    },
  },
  /** GET /v1/tasks */
  list: {
    operationId: 'tasks.list',
    summary: 'List the caller\'s tasks',
    tag: 'Tasks',
    query: listFilters('part of the title or of the task id, in any case'),
    responses: { 200: json('a page of tasks', ref('TaskList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** GET /v1/tasks/:id */
  get: {
    operationId: 'tasks.get',
    summary: 'Read a task (Prefer: wait=N waits up to N seconds for it to finish)',
    tag: 'Tasks',
    headers: [PREFER_WAIT],
    responses: { 200: { ...json('the task', ref('Task')), headers: PREFERENCE_APPLIED } },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** GET /v1/tasks/:id/events */
  stream: {
    operationId: 'tasks.events',
    summary: 'Follow a task as server-sent events until it is finished',
    tag: 'Tasks',
    description:
      'A text/event-stream: an event `task` whose data is the task object (as GET /v1/tasks/{id} returns it), sent now and at every change, each with `id:` the task\'s version (a number that grows with every change). ' +
      'The stream ends after the finished state (succeeded, failed or canceled, and settled). Comment lines (`: keep-alive`) come every 15 seconds. ' +
      'With Last-Event-ID only newer states are sent; when that id is already the finished state the answer is 204 (an EventSource stops reconnecting). ' +
      'Errors (404 for an unknown task or another account\'s) come before the stream, as JSON.',
    headers: [{ name: 'Last-Event-ID', description: 'the id of the last event received (sent by EventSource on reconnection)', schema: { type: 'string', maxLength: 100 } }],
    responses: {
      200: {
        description: 'the task\'s states as server-sent events',
        content: 'sse',
        schema: { type: 'string', description: 'events "task" (id: version; data: the Task object as JSON), comment lines to keep the connection alive', examples: ['id: 3\nevent: task\ndata: {"id":"task_...","status":"running",...}\n\n'] },
      },
      204: { description: 'Last-Event-ID names the finished state: nothing more will come', content: 'none' },
    },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** POST /v1/tasks/:id/cancel */
  cancelTask: {
    operationId: 'tasks.cancel',
    summary: 'Cancel a task',
    tag: 'Tasks',
    description:
      '200: canceled at once (confirmed) or nothing to do (not_needed). 202: the supplier is asked (requested, then checking); keep reading the task; funds stay reserved until confirmed.',
    requestBody: {
      required: false,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            description: 'Ignored. Like every JSON body, it may hold no key named `__proto__` or `constructor`, at any depth (400 VALIDATION_ERROR).',
            propertyNames: { not: { enum: ['__proto__', 'constructor'] } },
          },
        },
      },
    },
    responses: { 200: json('done', ref('CancelResult')), 202: json('requested or being checked', ref('CancelResult')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** GET /v1/billing */
  billing: {
    operationId: 'billing.list',
    summary: 'List the bills of the caller\'s tasks',
    tag: 'Wallet',
    query: listFilters('part of the task\'s title, of the task id or of the bill id, in any case'),
    responses: { 200: json('a page of bills', ref('BillList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
};
