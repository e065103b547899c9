import { taskView, type TaskView } from '../application/task-views';
import { taskDecider, type TaskEvent } from '../domain/task';

/** The task object of CONTRACT §3, as `GET /v1/tasks/{id}` answers it. */
export type TaskObject = TaskView;

/**
 * The task object after `events` (a prefix of the task's stream `task-<task_id>`, in order),
 * or null when they hold no created task. Lets other contexts show a task as it was at one
 * event (webhook messages), without reading the tasks read model.
 */
export function taskObjectAfter(events: readonly { type: string; data: unknown }[]): TaskObject | null {
  let state = taskDecider.initialState();
  for (const e of events) state = taskDecider.evolve(state, e as TaskEvent);
  return state.kind === 'task' ? taskView(state.task) : null;
}
