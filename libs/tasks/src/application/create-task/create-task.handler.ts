import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError, fold, Money, newId, streamName } from '@gensvc/kernel';
import { loadAggregate, type WorkflowRun } from '@gensvc/event-sourcing';
import { QuoteBook, type LockedQuote } from '@gensvc/quoting/contracts';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { AssetRegistry } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import { TASK_CREATION_STREAM, taskCreationDecider, type CreationIntent } from '../../domain/task-creation';
import type { CreationState } from '../../domain/task-creation-workflow';
import { taskDecider, type TaskRecord, type TaskState } from '../../domain/task';
import { TaskStore } from '../task-store';
import { TaskCreation } from './task-creation';

export interface CreateTaskCommand {
  readonly type: 'CreateTask';
  readonly data: {
    readonly account_id: string;
    readonly connection_id: string;
    readonly idempotency_key: string;
    readonly quote_id: string;
    /** Already trimmed; null when absent. */
    readonly title: string | null;
  };
  readonly metadata: { readonly now: Date };
}

export interface CreateTaskResult {
  readonly task: TaskRecord;
  /** Highest position this call appended, if it appended anything. */
  readonly position?: bigint;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export const creationIdOf = (accountId: string, idempotencyKey: string): string => sha256(`${accountId}\n${idempotencyKey}`);
export const bodyHashOf = (quoteId: string, title: string | null): string => sha256(JSON.stringify({ quote_id: quoteId, title }));

/**
 * POST /v1/tasks. The intent is recorded first on `taskcreation-<sha256(account, key)>`
 * (no_stream: one intent and one task id per key, bound to the body); then the creation
 * workflow (`domain/task-creation-workflow.ts`: quote accepted → funds reserved → task
 * created, or rejected and rolled back) runs inline for latency, through the workflow
 * processor (`TaskCreation`). The same processor runs it from the checkpointed subscription
 * (`TaskCreationReactor`) for every stored intent, so a crash anywhere after the intent is
 * finished by the reactor (after a restart: from the checkpoint), and a retry with the same
 * key finishes it too.
 */
@Injectable()
export class CreateTaskHandler {
  constructor(
    private readonly tasks: TaskStore,
    private readonly quotes: QuoteBook,
    private readonly wallet: WalletCommands,
    private readonly assets: AssetRegistry,
    private readonly voices: VoiceRegistry,
    private readonly creation: TaskCreation,
  ) {}

  async execute(cmd: CreateTaskCommand): Promise<CreateTaskResult> {
    const { account_id: accountId, connection_id: connectionId, idempotency_key: idempotencyKey, quote_id: quoteId, title } = cmd.data;
    const creationId = creationIdOf(accountId, idempotencyKey);
    const bodyHash = bodyHashOf(quoteId, title);
    const stream = streamName(TASK_CREATION_STREAM, creationId);
    const existing = await this.intentOf(stream);
    if (existing) return this.resume(existing, bodyHash);
    // A new key: refuse what cannot succeed now without recording anything. (A concurrent
    // request with the same key may have locked the quote meanwhile: then follow its intent.)
    try {
      const quote = await this.quotes.usable(quoteId, accountId);
      await this.checkReferences(quote);
      // A quick look first (it may count this process's reservations not stored yet), the
      // exact one only when that is short.
      let wallet = await this.wallet.view(accountId, { includeInFlight: true });
      if (Money.parse(wallet.available) < quote.maxAmount) wallet = await this.wallet.view(accountId);
      if (Money.parse(wallet.available) < quote.maxAmount) throw insufficient(wallet.available, quote.maxAmount);
    } catch (err) {
      const raced = await this.intentOf(stream);
      if (raced) return this.resume(raced, bodyHash);
      throw err;
    }

    const intent: CreationIntent = {
      creation_id: creationId,
      task_id: newId('task'),
      account_id: accountId,
      connection_id: connectionId,
      idempotency_key: idempotencyKey,
      body_hash: bodyHash,
      quote_id: quoteId,
      title,
      requested_at: cmd.metadata.now.toISOString(),
    };
    const run = await this.creation.start(stream, intent, cmd.metadata.now);
    if (run.state.status === 'none') {
      // Another request stored its intent under this key first: its creation is the one.
      const winner = await this.intentOf(stream);
      if (!winner) throw new Error(`no intent stored under creation ${creationId}`);
      return this.resume(winner, bodyHash);
    }
    return answer(run, run.state.status === 'created' ? fold(taskDecider, [{ type: 'TaskCreated', data: run.state.task }]) : null);
  }

  private async intentOf(stream: string): Promise<CreationIntent | null> {
    return (await loadAggregate(this.tasks.events, stream, taskCreationDecider)).state.intent;
  }

  private async resume(intent: CreationIntent, bodyHash: string): Promise<CreateTaskResult> {
    if (intent.body_hash !== bodyHash) {
      const created = (await this.tasks.load(intent.task_id)).kind === 'task';
      throw new IdempotencyConflict(created ? intent.task_id : null);
    }
    const run = await this.creation.processor.run(intent);
    return answer(run, await this.tasks.load(intent.task_id));
  }

  /** Assets and voices named by the quote must still be usable (deleted meanwhile → 400). */
  private async checkReferences(quote: LockedQuote): Promise<void> {
    if (quote.assetIds.length) await this.assets.requireUsable(quote.accountId, quote.assetIds, 'input.asset_ids');
    if (quote.voiceId) await this.voices.requireUsable(quote.accountId, quote.voiceId, quote.supplier);
  }
}

/**
 * IDEMPOTENCY_CONFLICT: the key is bound to another body. `taskId` is the task that key
 * created (null when its creation was refused), so a caller that lost the first answer can
 * follow that task.
 */
export class IdempotencyConflict extends AppError {
  constructor(readonly taskId: string | null) {
    super('IDEMPOTENCY_CONFLICT', `Idempotency-Key was already used with a different body${taskId ? ` (it created task ${taskId})` : ''}; use a new key for a new task`);
  }
}

/** The request's answer: the task (its stream's state), or the refusal the creation was rolled back with. */
function answer(run: WorkflowRun<CreationState>, task: TaskState | null): CreateTaskResult {
  if (run.state.status === 'created' && task?.kind === 'task') return { task: task.task, position: run.position };
  if (run.state.status === 'rolled_back' && run.state.refusal) throw new AppError(run.state.refusal.code as AppError['code'], run.state.refusal.message);
  throw new Error(`the creation of task ${'intent' in run.state ? run.state.intent?.task_id : 'none'} did not finish (${run.state.status})`);
}

function insufficient(available: string, needed: bigint): AppError {
  return new AppError('INSUFFICIENT_FUNDS', `available funds ${available} CNY are less than the required ${Money.format(needed)} CNY`);
}
