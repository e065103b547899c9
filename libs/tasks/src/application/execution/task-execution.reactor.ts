import { Injectable, Logger } from '@nestjs/common';
import { AppError, AsReactor, type Reactor, type RecordedEvent } from '@gensvc/shared';
import { SUPPLIER_JOB_EVENT_TYPES, SupplierGateway, type SupplierJobEvent } from '@gensvc/suppliers/contracts';
import { TASK_TERMINAL_EVENTS as TERMINAL_EVENTS, type TaskCreatedData } from '../../contracts/task-events';
import { isTerminal, type TaskCommand } from '../../domain/task';
import { TaskStore } from '../task-store';
import { TaskSettlement } from './task-settlement';

/**
 * Drives tasks from stored events:
 * - TaskCreated → submit the job to its supplier (idempotent per task);
 * - CancellationRequested → ask the supplier to cancel (again after a crash; idempotent);
 * - the supplier job's events (`supplierjob-<task_id>`) → the task's own transitions:
 *   Dispatched → TaskStarted; Succeeded → TaskSucceeded; Failed → TaskFailed;
 *   Canceled → CancellationConfirmed + TaskCanceled; CancelChecking / Refused /
 *   Unconfirmed → the cancellation's status;
 * - TaskSucceeded / TaskFailed / TaskCanceled → settle with the wallet (whoever ended the
 *   task, e.g. a cancel answered at once; settling twice is a no-op).
 * One reactor rather than several: each reactor keeps its own checkpoint per event.
 * The task decider ignores what no longer applies (a late success after a confirmed
 * cancellation, a repeat), so a race between cancel and completion ends in one outcome.
 */
@AsReactor()
@Injectable()
export class TaskExecutionReactor implements Reactor {
  readonly name = 'tasks.execution';
  readonly handles: readonly string[] = ['TaskCreated', 'CancellationRequested', ...TERMINAL_EVENTS, ...SUPPLIER_JOB_EVENT_TYPES];
  private readonly logger = new Logger('TaskExecution');

  constructor(
    private readonly tasks: TaskStore,
    private readonly gateway: SupplierGateway,
    private readonly settlement: TaskSettlement,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    if (event.type === 'TaskCreated') return this.submit(event.data as TaskCreatedData);
    const taskId = (event.data as { task_id: string }).task_id;
    if (event.type === 'CancellationRequested') return this.askToCancel(taskId);
    if ((TERMINAL_EVENTS as readonly string[]).includes(event.type)) {
      await this.settlement.settle(taskId);
      return;
    }
    const command = this.commandFor(event as unknown as SupplierJobEvent);
    if (!command) return;
    try {
      await this.tasks.handle(taskId, command);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') {
        this.logger.warn(`${event.type} for unknown task ${taskId} ignored`);
        return;
      }
      throw err;
    }
    // Settle at once (the terminal event settles again as a safety net: a no-op).
    if (command.type === 'SucceedTask' || command.type === 'FailTask' || command.type === 'ConfirmCancellation') await this.settlement.settle(taskId);
  }

  private async submit(d: TaskCreatedData): Promise<void> {
    const state = await this.tasks.load(d.task_id);
    if (state.kind !== 'task' || isTerminal(state.task.status)) return;
    await this.gateway.submit({ taskId: d.task_id, accountId: d.account_id, modelId: d.model, capability: d.capability, params: d.params });
  }

  private async askToCancel(taskId: string): Promise<void> {
    const state = await this.tasks.load(taskId);
    if (state.kind !== 'task' || isTerminal(state.task.status)) return;
    const c = state.task.cancellation.status;
    if (c !== 'requested' && c !== 'checking') return;
    const answer = await this.gateway.requestCancel(taskId);
    if (answer === 'canceled') {
      await this.tasks.handle(taskId, { type: 'ConfirmCancellation', now: this.tasks.now() });
      await this.settlement.settle(taskId);
    }
  }

  private commandFor(event: SupplierJobEvent): TaskCommand | null {
    // The supplier's time of the outcome (stable across redeliveries).
    const at = Date.parse(event.data.at);
    const now = Number.isNaN(at) ? this.tasks.now() : new Date(at);
    switch (event.type) {
      case 'SupplierJobQueued':
        return null;
      case 'SupplierJobDispatched':
        return { type: 'StartTask', now };
      case 'SupplierJobSucceeded':
        return { type: 'SucceedTask', output: { ...event.data.output, asset_ids: [...event.data.output.asset_ids] }, now };
      case 'SupplierJobFailed':
        return { type: 'FailTask', error: { code: event.data.error.code, message: event.data.error.message }, now };
      case 'SupplierJobCanceled':
        return { type: 'ConfirmCancellation', now };
      case 'SupplierCancelChecking':
        return { type: 'MarkCancellationChecking', now };
      case 'SupplierCancelRefused':
        return { type: 'MarkCancellationRefused', now };
      case 'SupplierCancelUnconfirmed':
        return { type: 'MarkCancellationUnconfirmed', now };
      default: {
        const never: never = event;
        return never;
      }
    }
  }
}
