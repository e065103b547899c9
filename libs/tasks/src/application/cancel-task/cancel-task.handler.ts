import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { type Principal } from '@gensvc/http';
import { isTerminal, type TaskRecord } from '../../domain/task';
import { TaskStore } from '../task-store';
import type { CancelView } from '../task-views';
import { TaskCancellation } from './task-cancellation';

export interface CancelResult {
  readonly view: CancelView;
  readonly position?: bigint;
}

/**
 * POST /v1/tasks/{id}/cancel (CONTRACT.md §4). The request is recorded first
 * (CancellationRequested), then the cancellation workflow runs inline (`TaskCancellation`):
 * a job no supplier holds yet is canceled at once (the task canceled, the cancellation
 * confirmed and the reservation released before the answer); a held job's outcome arrives as
 * events. A finished task answers `not_needed` and stays unchanged. Repeating is harmless: a
 * pending request asks the supplier again, anything else answers the current state.
 */
@Injectable()
export class CancelTaskHandler {
  constructor(
    private readonly tasks: TaskStore,
    private readonly cancellation: TaskCancellation,
  ) {}

  async execute(principal: Pick<Principal, 'accountId'>, taskId: string): Promise<CancelResult> {
    const state = await this.tasks.load(taskId);
    if (state.kind !== 'task' || state.task.account_id !== principal.accountId) throw new AppError('NOT_FOUND', `task ${taskId} not found`);
    const task = state.task;
    const pending = task.cancellation.status === 'requested' || task.cancellation.status === 'checking';
    if (isTerminal(task.status) || (task.cancellation.status !== 'none' && !pending)) return { view: cancelView(task, this.tasks.now()) };
    const run = await this.cancellation.start(taskId, async () =>
      pending ? state : (await this.tasks.handle(taskId, { type: 'RequestCancellation', data: { task_id: taskId }, metadata: { now: this.tasks.now() } })).state,
    );
    const latest = await this.tasks.load(taskId);
    return { view: cancelView(latest.kind === 'task' ? latest.task : task, this.tasks.now()), position: run.position };
  }
}

/** The cancellation as the answer shows it: a finished task that was not canceled did not need it. */
function cancelView(t: TaskRecord, now: Date): CancelView {
  const base = { task_id: t.task_id, status: t.status };
  if (isTerminal(t.status) && t.status !== 'canceled') return { ...base, cancellation: { status: 'not_needed', requested_at: now.toISOString(), error_code: null } };
  return { ...base, cancellation: { ...t.cancellation } };
}
