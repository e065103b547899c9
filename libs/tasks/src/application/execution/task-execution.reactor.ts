import { Injectable, Logger } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import { SUPPLIER_JOB_EVENT_TYPES, SupplierGateway, type SupplierJobEvent } from '@gensvc/suppliers/contracts';
import type { TaskCreatedData } from '../../contracts/task-events';
import { isTerminal, type TaskCommand } from '../../domain/task';
import { TaskSettlement } from '../settle-task/task-settlement';
import { TaskStore } from '../task-store';

/**
 * Drives tasks from stored events:
 * - TaskCreated → submit the job to its supplier (idempotent per task);
 * - the supplier job's events (`supplierjob-<task_id>`) → the task's own transitions:
 *   Dispatched → TaskStarted; Succeeded → TaskSucceeded; Failed → TaskFailed;
 *   Canceled → CancellationConfirmed + TaskCanceled; CancelChecking / Refused /
 *   Unconfirmed → the cancellation's status;
 * - a command that ended the task → the settlement workflow's processor inline, with the
 *   state at hand (no read), so a task is settled as soon as it ended; the processor's
 *   `TaskSettlementReactor` resumes it from the checkpoint if that run did not finish.
 * (A cancellation request is the cancellation workflow's: `TaskCancellationReactor`.)
 * The task decider ignores what no longer applies (a late success after a confirmed
 * cancellation, a repeat), so a race between cancel and completion ends in one outcome.
 */
@AsReactor()
@Injectable()
export class TaskExecutionReactor implements Reactor {
  readonly name = 'tasks.execution';
  readonly handles: readonly string[] = ['TaskCreated', ...SUPPLIER_JOB_EVENT_TYPES];
  private readonly logger = new Logger('TaskExecution');

  constructor(
    private readonly tasks: TaskStore,
    private readonly gateway: SupplierGateway,
    private readonly settlement: TaskSettlement,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    if (event.type === 'TaskCreated') return this.submit(event.data as TaskCreatedData);
    const taskId = (event.data as { task_id: string }).task_id;
    const command = commandFor(event as unknown as SupplierJobEvent, this.tasks.now());
    if (!command) return;
    const { state, events } = await this.tasks.handle(taskId, command);
    if (state.kind !== 'task') this.logger.warn(`${event.type} for unknown task ${taskId} ignored`);
    else if (events.length && isTerminal(state.task.status)) await this.settlement.settle(taskId, state);
  }

  private async submit(d: TaskCreatedData): Promise<void> {
    const state = await this.tasks.load(d.task_id);
    if (state.kind !== 'task' || isTerminal(state.task.status)) return;
    await this.gateway.submit({ taskId: d.task_id, accountId: d.account_id, modelId: d.model, capability: d.capability, params: d.params });
  }
}

/** The task command a supplier job event asks for (null: none), at the supplier's time of the outcome. */
export function commandFor(event: SupplierJobEvent, fallbackNow: Date): TaskCommand | null {
  // The supplier's time of the outcome (stable across redeliveries).
  const at = Date.parse(event.data.at);
  const metadata = { now: Number.isNaN(at) ? fallbackNow : new Date(at) };
  const data = { task_id: event.data.task_id };
  switch (event.type) {
    case 'SupplierJobQueued':
    case 'SupplierJobSubmitting':
    case 'SupplierJobNotTaken':
      return null;
    case 'SupplierJobDispatched':
      return { type: 'StartTask', data, metadata };
    case 'SupplierJobSucceeded':
      return { type: 'SucceedTask', data: { ...data, output: { ...event.data.output, asset_ids: [...event.data.output.asset_ids] } }, metadata };
    case 'SupplierJobFailed':
      return { type: 'FailTask', data: { ...data, error: { code: event.data.error.code, message: event.data.error.message } }, metadata };
    case 'SupplierJobCanceled':
      return { type: 'ConfirmCancellation', data, metadata };
    case 'SupplierCancelChecking':
      return { type: 'MarkCancellationChecking', data, metadata };
    case 'SupplierCancelRefused':
      return { type: 'MarkCancellationRefused', data, metadata };
    case 'SupplierCancelUnconfirmed':
      return { type: 'MarkCancellationUnconfirmed', data, metadata };
    default: {
      const never: never = event;
      return never;
    }
  }
}
