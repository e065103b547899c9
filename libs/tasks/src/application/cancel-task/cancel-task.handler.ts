import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { type Principal } from '@gensvc/http';
import { SupplierGateway } from '@gensvc/suppliers/contracts';
import { isTerminal, type TaskRecord } from '../../domain/task';
import { TaskSettlement } from '../settle-task/task-settlement';
import { TaskStore } from '../task-store';
import type { CancelView } from '../task-views';

export interface CancelResult {
  /** 200: the cancellation is decided (confirmed, not needed, refused, unconfirmed); 202: still being checked. */
  readonly httpStatus: 200 | 202;
  readonly view: CancelView;
  readonly position?: bigint;
}

const maxPos = (...ps: (bigint | undefined)[]): bigint | undefined =>
  ps.reduce<bigint | undefined>((a, b) => (a === undefined ? b : b === undefined ? a : a > b ? a : b), undefined);

/**
 * POST /v1/tasks/{id}/cancel (CONTRACT.md §4). The request is recorded first
 * (CancellationRequested), then the supplier is asked. A job no supplier holds yet is
 * canceled at once: the task is canceled, the cancellation confirmed and the reservation
 * released before answering 200. A held job answers 202 (`requested`, then `checking`);
 * the supplier's answer arrives as events. A finished task answers 200 `not_needed` and
 * stays unchanged. Repeating is harmless: it answers the current state.
 */
@Injectable()
export class CancelTaskHandler {
  constructor(
    private readonly tasks: TaskStore,
    private readonly gateway: SupplierGateway,
    private readonly settlement: TaskSettlement,
  ) {}

  async execute(principal: Pick<Principal, 'accountId'>, taskId: string): Promise<CancelResult> {
    const state = await this.tasks.load(taskId);
    if (state.kind !== 'task' || state.task.account_id !== principal.accountId) throw new AppError('NOT_FOUND', `task ${taskId} not found`);
    const now = this.tasks.now();
    let task = state.task;
    if (isTerminal(task.status) || task.cancellation.status !== 'none') {
      // Finished, or asked before: nothing new to do except nudging a pending request again.
      if (!isTerminal(task.status) && (task.cancellation.status === 'requested' || task.cancellation.status === 'checking')) {
        return this.ask(task, undefined);
      }
      return { ...outcome(task, now) };
    }
    const requested = await this.tasks.handle(taskId, { type: 'RequestCancellation', data: { task_id: taskId }, metadata: { now } });
    if (requested.state.kind === 'task') task = requested.state.task;
    if (isTerminal(task.status)) return { ...outcome(task, now), position: requested.position };
    return this.ask(task, requested.position);
  }

  private async ask(task: TaskRecord, position: bigint | undefined): Promise<CancelResult> {
    const answer = await this.gateway.requestCancel(task.task_id);
    let current = task;
    if (answer === 'canceled') {
      const confirmed = await this.tasks.handle(task.task_id, { type: 'ConfirmCancellation', data: { task_id: task.task_id }, metadata: { now: this.tasks.now() } });
      // The settlement workflow, inline (its reactor hears TaskCanceled too: a no-op then), so
      // the answer and the wallet show the reservation released.
      const settled = await this.settlement.settle(task.task_id, confirmed.state);
      position = maxPos(position, confirmed.position, settled.position);
    }
    const latest = await this.tasks.load(task.task_id);
    if (latest.kind === 'task') current = latest.task;
    return { ...outcome(current, this.tasks.now()), position };
  }
}

/** The answer for the task as it is now. */
function outcome(t: TaskRecord, now: Date): CancelResult {
  const base = { task_id: t.task_id, status: t.status };
  if (t.status === 'canceled') return { httpStatus: 200, view: { ...base, cancellation: { ...t.cancellation } } };
  if (isTerminal(t.status)) {
    return { httpStatus: 200, view: { ...base, cancellation: { status: 'not_needed', requested_at: now.toISOString(), error_code: null } } };
  }
  const c = t.cancellation.status;
  const pending = c === 'requested' || c === 'checking' || c === 'none';
  return { httpStatus: pending ? 202 : 200, view: { ...base, cancellation: { ...t.cancellation } } };
}
