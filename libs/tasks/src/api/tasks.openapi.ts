import { type ControllerOpenApi, jsonAnswer as json, type OpenApiParameter, PAGE_PARAMETERS, schemaRef as ref } from '@gensvc/shared';
import { SETTLEMENT_STATUSES, TASK_STATUSES } from '../application/task-list/list-query';
import type { TasksController } from './tasks.controller';

/** The filters of the task and bill lists. */
const LIST_FILTERS: readonly OpenApiParameter[] = [
  ...PAGE_PARAMETERS,
  { name: 'q', description: 'search in id, title, model and quote id', schema: { type: 'string', maxLength: 200 } },
  { name: 'status', description: 'task status', schema: { type: 'string', maxLength: 40, enum: TASK_STATUSES } },
  { name: 'modality', description: 'task modality', schema: { type: 'string', maxLength: 40, enum: ['text', 'image', 'audio', 'video'] } },
  { name: 'settlement_status', description: 'settlement status', schema: { type: 'string', maxLength: 40, enum: SETTLEMENT_STATUSES } },
  { name: 'connection_id', description: 'the API key id or OAuth grant id that created the task', schema: { type: 'string', maxLength: 100 } },
  { name: 'created_from', description: 'creation time, inclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'created_before', description: 'creation time, exclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'min_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
  { name: 'max_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
];

/** The OpenAPI declarations of tasks and bills, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const TASKS_OPENAPI: ControllerOpenApi<TasksController> = {
  /** POST /v1/tasks */
  createTask: {
    operationId: 'tasks.create',
    summary: 'Create a task from a quote (locks the quote, reserves max_amount)',
    tag: 'Tasks',
    description:
      'Retry with the same Idempotency-Key and the same body to get the same task (for at least 24 hours). A new creation needs a new quote and a new key.',
    headers: [{ name: 'Idempotency-Key', required: true, description: 'one key per intended task', schema: { type: 'string', minLength: 8, maxLength: 150 } }],
    body: {
      name: 'TaskCreateRequest',
      refine: {
        quote_id: { minLength: 1 },
        title: { minLength: 1, maxLength: 200, description: '1 to 200 characters after trimming leading and trailing whitespace' },
      },
    },
    responses: { 202: json('the task (queued)', ref('Task')) },
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
  },
  /** GET /v1/tasks */
  list: {
    operationId: 'tasks.list',
    summary: 'List the caller\'s tasks',
    tag: 'Tasks',
    query: LIST_FILTERS,
    responses: { 200: json('a page of tasks', ref('TaskList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** GET /v1/tasks/:id */
  get: {
    operationId: 'tasks.get',
    summary: 'Read a task (poll it for progress)',
    tag: 'Tasks',
    responses: { 200: json('the task', ref('Task')) },
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
    query: LIST_FILTERS,
    responses: { 200: json('a page of bills', ref('BillList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
};
