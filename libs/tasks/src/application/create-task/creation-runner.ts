import { Injectable } from '@nestjs/common';
import { QuoteBook } from '@gensvc/quoting/contracts';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { AppError, ConcurrencyError, type EventMetadata } from '@gensvc/kernel';
import { startCommand } from '@gensvc/event-sourcing';
import { taskCreationDecider, type CreationIntent } from '../../domain/task-creation';
import { taskCreatedData, taskCreationWorkflow, type CreationCommand, type CreationInput, type CreationState } from '../../domain/task-creation-workflow';
import type { TaskState } from '../../domain/task';
import { TaskStore } from '../task-store';

export interface CreationRun {
  readonly state: CreationState;
  /** The task stream's state after the run (its record when created). */
  readonly task: TaskState | null;
  /** Highest position the run appended, if it appended anything. */
  readonly position?: bigint;
}

/** Finished inline runs remembered for the reactor (older ones: it reads the task stream). */
const REMEMBERED = 20_000;

const maxPos = (a: bigint | undefined, b: bigint | undefined): bigint | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/**
 * Runs the task creation workflow: folds each input, executes the commands the workflow
 * sends (quoting, wallet, task stream) one after the other and feeds their outcomes back as
 * inputs, until it sends nothing more. Every command is idempotent per task id, so two runners
 * of one creation (the request and the reactor, two requests with the same key, two
 * processes) converge on the task stream's first event.
 *
 * It also remembers which creations a request is running inline, so that the reactor (which
 * hears every stored intent from the checkpointed subscription) waits for that run instead
 * of repeating it, and takes over only when it did not finish.
 */
@Injectable()
export class TaskCreationRunner {
  private readonly inline = new Map<string, Promise<boolean>>();

  constructor(
    private readonly tasks: TaskStore,
    private readonly quotes: QuoteBook,
    private readonly wallet: WalletCommands,
  ) {}

  /** A fresh creation: nothing of it can be stored yet but its intent. */
  start(intent: CreationIntent): Promise<CreationRun> {
    return this.run([{ type: 'TaskCreationRequested', data: intent }]);
  }

  /**
   * A fresh creation on an event store with pipelined appends, in one group commit: the intent,
   * the quote lock, the reservation and the task are each decided at once and queued after the
   * one before (`after`: stored only if that one is), and the run waits for them together. The
   * workflow's happy path, with its steps' own deciders; it answers null, once everything it
   * queued has settled, when anything else happened (a refusal, a failed precondition, an
   * intent of a concurrent request): the caller then runs the workflow on what is stored,
   * which converges from any prefix of these steps, as after a crash. An append that fails
   * otherwise (I/O) fails the request, as it would step by step.
   */
  async startPipelined(intentStream: string, intent: CreationIntent, metadata: Partial<EventMetadata> & { now: Date }): Promise<CreationRun | null> {
    const steps: Promise<{ position?: bigint } | undefined>[] = [];
    const fallBack = async () => {
      await Promise.allSettled(steps);
      return null;
    };
    let requested;
    try {
      requested = await startCommand(this.tasks.events, intentStream, taskCreationDecider, { type: 'RequestCreation', data: intent, metadata: { now: metadata.now } });
    } catch (err) {
      if (err instanceof AppError) return null; // another body under the key: answered on the way below
      throw err;
    }
    if (!requested.lastEventId) return fallBack(); // an intent is stored already (a concurrent request)
    steps.push(requested.committed);
    const { task_id: taskId, account_id: accountId } = intent;
    const quote = await this.quotes.beginAccept(intent.quote_id, accountId, taskId, [requested.lastEventId]);
    if (!quote.accepted || !quote.eventId) return fallBack();
    steps.push(quote.committed);
    const funds = await this.wallet.beginReserve({ accountId, reservationId: taskId, taskId, amount: quote.quote.maxAmount, after: [quote.eventId] });
    if (!funds.reserved || !funds.eventId) return fallBack();
    steps.push(funds.committed);
    const now = this.tasks.now();
    const data = taskCreatedData(intent, quote.quote, now.toISOString());
    const created = await this.tasks.begin(taskId, { type: 'CreateTask', data, metadata: { now } }, [funds.eventId], { fresh: true });
    steps.push(created.committed);
    const stored = await Promise.allSettled(steps);
    // A failed precondition hands over; any other failure (I/O) is the request's error, and
    // the creation is finished by a retry with the same key or by the reactor, as after a crash.
    const failure = stored.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof ConcurrencyError));
    if (failure) throw failure.reason;
    if (created.state.kind !== 'task' || stored.some((r) => r.status === 'rejected')) return null;
    let position: bigint | undefined;
    for (const r of stored) position = maxPos(position, (r as PromiseFulfilledResult<{ position?: bigint } | undefined>).value?.position);
    return { state: { status: 'created', intent, task: data }, task: created.state, position };
  }

  /** Resumes a creation from what is stored: its intent and its task stream. */
  async resume(intent: CreationIntent): Promise<CreationRun> {
    const task = await this.tasks.load(intent.task_id);
    return this.run([{ type: 'TaskCreationRequested', data: intent }, ...outcomeInputs(task)], task);
  }

  /**
   * Marks `taskId` as run inline by the caller until `work` settles: it counts as finished
   * when `work` resolves with a finished run.
   */
  track(taskId: string, work: Promise<CreationRun | null>): void {
    const finished = work.then(
      (r) => r !== null && (r.state.status === 'created' || r.state.status === 'rolled_back'),
      () => false,
    );
    this.inline.set(taskId, finished);
    void finished.then((ok) => {
      if (!ok) this.inline.delete(taskId);
      if (this.inline.size > REMEMBERED) this.inline.delete(this.inline.keys().next().value as string);
    });
  }

  /** Whether an inline run of `taskId` finished (waits for one in progress). */
  async finishedInline(taskId: string): Promise<boolean> {
    const run = this.inline.get(taskId);
    return run ? run : false;
  }

  /**
   * Folds `inputs` (what is stored: history, already acted upon except for the last one),
   * decides on the last one, executes the commands and goes on with their outcomes.
   */
  async run(inputs: readonly CreationInput[], task: TaskState | null = null): Promise<CreationRun> {
    const w = taskCreationWorkflow;
    let state = inputs.slice(0, -1).reduce(w.evolve, w.initialState());
    let position: bigint | undefined;
    const queue = inputs.slice(-1);
    for (let input = queue.shift(); input; input = queue.shift()) {
      state = w.evolve(state, input);
      for (const command of w.decide(input, state)) {
        const outcome = await this.execute(command);
        position = maxPos(position, outcome.position);
        if (outcome.task) task = outcome.task;
        queue.push(...outcome.inputs);
      }
    }
    return { state, task, position };
  }

  private async execute(c: CreationCommand): Promise<{ inputs: CreationInput[]; task?: TaskState; position?: bigint }> {
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
        return this.onTask(c.data.task_id, { type: 'CreateTask', data: c.data, metadata: { now: this.tasks.now() } });
      case 'RejectCreation':
        return this.onTask(c.data.task_id, { type: 'RejectCreation', data: c.data, metadata: { now: this.tasks.now() } });
      case 'RollBackCreation':
        return this.onTask(c.data.task_id, { type: 'RollBackCreation', data: c.data, metadata: { now: this.tasks.now() } });
      case 'ReleaseQuote': {
        const r = await this.quotes.release(c.data.quote_id, c.data.task_id);
        return { inputs: [], position: r.position };
      }
      case 'ReleaseFunds': {
        const r = await this.wallet.release({ accountId: c.data.account_id, reservationId: c.data.reservation_id });
        return { inputs: [], position: r.position };
      }
      default: {
        const never: never = c;
        return never;
      }
    }
  }

  /** A command on the task stream; its outcome is the stream's state, whoever wrote it. */
  private async onTask(taskId: string, command: Parameters<TaskStore['handle']>[1]) {
    const r = await this.tasks.handle(taskId, command);
    return { inputs: outcomeInputs(r.state), task: r.state, position: r.position };
  }
}

/** The task stream's state as workflow inputs. */
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
