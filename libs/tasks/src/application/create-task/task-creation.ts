import { Inject, Injectable } from '@nestjs/common';
import { streamName } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate, WorkflowProcessor, type WorkflowDefinition, type WorkflowOutcome, type WorkflowRun } from '@gensvc/event-sourcing';
import { QuoteBook } from '@gensvc/quoting/contracts';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { TASK_CREATION_STREAM, taskCreationDecider, type CreationIntent } from '../../domain/task-creation';
import { taskCreationWorkflow, type CreationCommand, type CreationInput, type CreationState } from '../../domain/task-creation-workflow';
import type { TaskState } from '../../domain/task';
import { TaskStore } from '../task-store';

/**
 * The task creation workflow (`domain/task-creation-workflow.ts`) under the workflow
 * processor: its stored history (the intent, then the task stream as outcomes) and its
 * commands on quoting, the wallet and the task stream, each idempotent per task id. The
 * request starts it inline (`start`: the intent and every step in one chain of appends, one
 * group commit on the embedded store); `TaskCreationReactor` resumes it for every stored
 * intent the request did not finish.
 */
@Injectable()
export class TaskCreation implements WorkflowDefinition<CreationIntent, CreationInput, CreationState, CreationCommand> {
  readonly name = 'tasks.creation';
  readonly workflow = taskCreationWorkflow;
  /** Its commands touch only the event store: a fresh creation goes into one group commit. */
  readonly chained = true;
  readonly processor: WorkflowProcessor<CreationIntent, CreationInput, CreationState, CreationCommand>;

  constructor(
    private readonly tasks: TaskStore,
    private readonly quotes: QuoteBook,
    private readonly wallet: WalletCommands,
    @Inject(EventStore) events: EventStore,
  ) {
    this.processor = new WorkflowProcessor(this, events);
  }

  idOf(intent: CreationIntent): string {
    return intent.task_id;
  }

  finished(state: CreationState): boolean {
    return state.status === 'created' || state.status === 'rolled_back';
  }

  /** A new intent: records it and runs the creation (state `none` when another intent holds the key: its creation is not run here). */
  start(stream: string, intent: CreationIntent, now: Date): Promise<WorkflowRun<CreationState>> {
    return this.processor.start(intent, async () => {
      // A concurrent request with the same key may win: then nothing of this intent is run.
      const recorded = await handleCommand(this.tasks.events, stream, taskCreationDecider, { type: 'RequestCreation', data: intent, metadata: { now } }, { retries: 20 });
      return recorded.state.intent?.task_id === intent.task_id ? [{ type: 'TaskCreationRequested', data: intent }] : [];
    });
  }

  /** What is stored of the creation: its intent (if it is the one stored under its key) and the task stream's outcome. */
  async history(intent: CreationIntent): Promise<readonly CreationInput[]> {
    const stored = (await loadAggregate(this.tasks.events, streamName(TASK_CREATION_STREAM, intent.creation_id), taskCreationDecider)).state.intent;
    if (stored?.task_id !== intent.task_id) return [];
    return [{ type: 'TaskCreationRequested', data: stored }, ...outcomeInputs(await this.tasks.load(intent.task_id))];
  }

  async execute(c: CreationCommand): Promise<WorkflowOutcome<CreationInput>> {
    switch (c.type) {
      case 'AcceptQuote': {
        const r = await this.quotes.accept(c.data.quote_id, c.data.account_id, c.data.task_id);
        return r.accepted
          ? { inputs: [{ type: 'QuoteLocked', data: { task_id: c.data.task_id, quote: r.quote } }], position: r.position }
          : { inputs: [{ type: 'QuoteRefused', data: { task_id: c.data.task_id, ...r.refusal } }] };
      }
      case 'ReserveFunds': {
        const { account_id: accountId, reservation_id: reservationId, task_id: taskId, amount } = c.data;
        const r = await this.wallet.reserve({ accountId, reservationId, taskId, amount });
        return r.reserved
          ? { inputs: [{ type: 'FundsReserved', data: { task_id: taskId, at: this.tasks.now().toISOString() } }], position: r.position }
          : { inputs: [{ type: 'FundsRefused', data: { task_id: taskId, ...r.refusal } }] };
      }
      case 'CreateTask':
        return this.onTask(c.data.task_id, { type: 'CreateTask', data: c.data, metadata: { now: this.tasks.now() } }, true);
      case 'RejectCreation':
        return this.onTask(c.data.task_id, { type: 'RejectCreation', data: c.data, metadata: { now: this.tasks.now() } });
      case 'RollBackCreation':
        return this.onTask(c.data.task_id, { type: 'RollBackCreation', data: c.data, metadata: { now: this.tasks.now() } });
      case 'ReleaseQuote':
        return { inputs: [], position: (await this.quotes.release(c.data.quote_id, c.data.task_id)).position };
      case 'ReleaseFunds':
        return { inputs: [], position: (await this.wallet.release({ accountId: c.data.account_id, reservationId: c.data.reservation_id })).position };
      default: {
        const never: never = c;
        return never;
      }
    }
  }

  /**
   * A command on the task stream; its outcome is the stream's state, whoever wrote it. The
   * task id of `CreateTask` was made with the intent, so its stream is not read first.
   */
  private async onTask(taskId: string, command: Parameters<TaskStore['handle']>[1], fresh = false): Promise<WorkflowOutcome<CreationInput>> {
    const r = await this.tasks.handle(taskId, command, { fresh });
    return { inputs: outcomeInputs(r.state), position: r.position };
  }
}

/** The task stream's state as creation inputs. */
export function outcomeInputs(task: TaskState): CreationInput[] {
  switch (task.kind) {
    case 'none':
      return [];
    case 'task':
      return [{ type: 'TaskCreated', data: task.task }];
    case 'rejected': {
      const rejected: CreationInput = { type: 'TaskCreationRejected', data: { task_id: task.task_id, code: task.code, message: task.message } };
      return task.rolledBack ? [rejected, { type: 'TaskCreationRolledBack', data: { task_id: task.task_id } }] : [rejected];
    }
    default: {
      const never: never = task;
      return never;
    }
  }
}
