import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection, type IndexSpec } from '@gensvc/event-sourcing';
import { Money, streamCategory } from '@gensvc/kernel';
import { TASK_STREAM } from '../../contracts/task-events';
import { TASK_EVENT_TYPES, taskDecider, type TaskEvent, type TaskRecord } from '../../domain/task';

export const TASKS = 'tasks';

/**
 * One document per task, read by GET /v1/tasks, GET /v1/tasks/{id} and GET /v1/billing
 * (a bill is another view of the same document). The task's input (`params`) is not kept.
 */
export type TaskDoc = Omit<TaskRecord, 'params'> & {
  /** Net charged amount in micro-units once settled (0 when released), null while reserved. */
  net_charged: number | null;
  /**
   * How many events of the task's stream are folded in (the last one's revision + 1): grows
   * with every change, the `id` of the task's server-sent events. Absent (read as 0) on
   * documents not changed since before it was kept.
   */
  version?: number;
};

export const TASK_INDEXES: IndexSpec[] = [
  { keys: { account_id: 1, created_at: -1, _id: -1 }, name: 'account_created' },
  { keys: { account_id: 1, status: 1, created_at: -1 }, name: 'account_status_created' },
  { keys: { account_id: 1, settlement_status: 1, created_at: -1 }, name: 'account_settlement_created' },
  { keys: { account_id: 1, modality: 1, created_at: -1 }, name: 'account_modality_created' },
  { keys: { account_id: 1, connection_id: 1, created_at: -1 }, name: 'account_connection_created' },
  { keys: { account_id: 1, net_charged: 1 }, name: 'account_net_charged' },
  // `q` (a case-insensitive substring of the title or the ids): a substring index where the store has one
  { keys: { title: 1, task_id: 1, bill_id: 1 }, name: 'search', search: true },
  // the documents changed since a position, for the callers waiting on tasks (TaskWatch)
  { keys: { _pos: 1 }, name: 'changes' },
];

/** Folds one event into a task document with the task decider's own `evolve`. */
export function evolveTaskDoc(doc: TaskDoc | null, event: TaskEvent): TaskDoc | null {
  if (!doc && event.type !== 'TaskCreated') return null;
  const state = taskDecider.evolve(doc ? { kind: 'task', task: { ...doc, params: {} } } : taskDecider.initialState(), event);
  if (state.kind !== 'task') return null;
  const { params: _params, ...record } = state.task;
  const net = record.settlement_status === 'reserved' ? null : Number(Money.parse(record.charged_amount ?? '0'));
  return { ...record, net_charged: net };
}

@AsProjection()
@Injectable()
export class TasksProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<TaskDoc & Record<string, unknown>, TaskEvent>({
    name: 'tasks.tasks',
    collection: TASKS,
    handles: TASK_EVENT_TYPES.filter((t) => t !== 'TaskCreationRejected' && t !== 'TaskCreationRolledBack'),
    documentId: (e) => (streamCategory(e.streamName) === TASK_STREAM ? e.data.task_id : null),
    indexes: TASK_INDEXES,
    evolve: (doc, e) => {
      const next = evolveTaskDoc(doc, e);
      return next && ({ ...next, version: Number(e.revision) + 1 } as TaskDoc & Record<string, unknown>);
    },
  });
}
