import { Injectable } from '@nestjs/common';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { isTerminal, type TaskState } from '../../domain/task';
import { taskSettlementWorkflow, type SettlementCommand, type SettlementInput } from '../../domain/task-settlement-workflow';
import { TaskStore } from '../task-store';

const maxPos = (a: bigint | undefined, b: bigint | undefined): bigint | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/**
 * Runs the settlement workflow (`domain/task-settlement-workflow.ts`) for one task: folds the
 * task's state as inputs, executes the commands (wallet capture or release, then TaskSettled)
 * and feeds their outcomes back. Run by `TaskSettlementReactor` for every ended task, and
 * inline by a cancellation the supplier confirmed at once (so its answer shows the
 * reservation released).
 */
@Injectable()
export class TaskSettlement {
  constructor(
    private readonly tasks: TaskStore,
    private readonly wallet: WalletCommands,
  ) {}

  /** Settles `taskId` if it ended and is not settled; `known` saves reading the task again. */
  async settle(taskId: string, known?: TaskState): Promise<{ position?: bigint }> {
    const state = known ?? (await this.tasks.load(taskId));
    const w = taskSettlementWorkflow;
    // The stored inputs are history; the workflow decides on the last one (as a reactor on
    // the event that brought it here), then on the outcomes of its own commands.
    const stored = settlementInputs(state);
    let s = stored.slice(0, -1).reduce(w.evolve, w.initialState());
    let position: bigint | undefined;
    const queue = stored.slice(-1);
    for (let input = queue.shift(); input; input = queue.shift()) {
      s = w.evolve(s, input);
      for (const command of w.decide(input, s)) {
        const outcome = await this.execute(command);
        position = maxPos(position, outcome.position);
        queue.push(...outcome.inputs);
      }
    }
    return { position };
  }

  private async execute(c: SettlementCommand): Promise<{ inputs: SettlementInput[]; position?: bigint }> {
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
