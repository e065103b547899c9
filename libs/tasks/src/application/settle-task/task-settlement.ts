import { Inject, Injectable } from '@nestjs/common';
import { EventStore, WorkflowProcessor, type WorkflowDefinition, type WorkflowOutcome, type WorkflowRun } from '@gensvc/event-sourcing';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { isTerminal, type TaskState } from '../../domain/task';
import { taskSettlementWorkflow, type SettlementCommand, type SettlementInput, type SettlementState } from '../../domain/task-settlement-workflow';
import { TaskStore } from '../task-store';

/**
 * The settlement workflow (`domain/task-settlement-workflow.ts`) under the workflow
 * processor: its history is the task's state as inputs, its commands the wallet's capture or
 * release, then TaskSettled. Started inline where a command ended the task (the supplier's
 * outcome, a cancellation confirmed at once), so a task is settled as soon as it ended;
 * `TaskSettlementReactor` resumes it for every terminal event an inline run did not settle.
 */
@Injectable()
export class TaskSettlement implements WorkflowDefinition<string, SettlementInput, SettlementState, SettlementCommand> {
  readonly name = 'tasks.settlement';
  readonly workflow = taskSettlementWorkflow;
  readonly processor: WorkflowProcessor<string, SettlementInput, SettlementState, SettlementCommand>;

  constructor(
    private readonly tasks: TaskStore,
    private readonly wallet: WalletCommands,
    @Inject(EventStore) events: EventStore,
  ) {
    this.processor = new WorkflowProcessor(this, events);
  }

  idOf(taskId: string): string {
    return taskId;
  }

  async history(taskId: string): Promise<readonly SettlementInput[]> {
    return settlementInputs(await this.tasks.load(taskId));
  }

  finished(state: SettlementState): boolean {
    return state.status === 'settled';
  }

  /** Settles `taskId` inline, from its state as the command that ended it left it. */
  settle(taskId: string, ended: TaskState): Promise<WorkflowRun<SettlementState>> {
    return this.processor.start(taskId, async () => settlementInputs(ended));
  }

  async execute(c: SettlementCommand): Promise<WorkflowOutcome<SettlementInput>> {
    switch (c.type) {
      case 'CaptureFunds':
      case 'ReleaseFunds': {
        const { account_id: accountId, reservation_id: reservationId } = c.data;
        const r =
          c.type === 'CaptureFunds'
            ? await this.wallet.capture({ accountId, reservationId, amount: c.data.amount })
            : await this.wallet.release({ accountId, reservationId });
        return { inputs: [{ type: 'ReservationClosed', data: { task_id: reservationId, charged: r.charged, released: r.released } }], position: r.position };
      }
      case 'SettleTask': {
        const r = await this.tasks.handle(c.data.task_id, { type: 'SettleTask', data: c.data, metadata: { now: this.tasks.now() } });
        return { inputs: [{ type: 'TaskSettled', data: { task_id: c.data.task_id } }], position: r.position };
      }
      default: {
        const never: never = c;
        return never;
      }
    }
  }
}

/** A task's state as settlement inputs: created, ended (its outcome), settled. */
export function settlementInputs(state: TaskState): SettlementInput[] {
  if (state.kind !== 'task') return [];
  const t = state.task;
  const inputs: SettlementInput[] = [{ type: 'TaskCreated', data: { task_id: t.task_id, account_id: t.account_id, estimated_amount: t.estimated_amount } }];
  if (isTerminal(t.status)) {
    const type = t.status === 'succeeded' ? 'TaskSucceeded' : t.status === 'failed' ? 'TaskFailed' : 'TaskCanceled';
    inputs.push({ type, data: { task_id: t.task_id } });
  }
  if (t.settlement_status !== 'reserved') inputs.push({ type: 'TaskSettled', data: { task_id: t.task_id } });
  return inputs;
}
