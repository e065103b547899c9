import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError, Money, handleCommand, loadAggregate, newId, streamName, type Principal } from '@gensvc/shared';
import { QuoteBook, type LockedQuote } from '@gensvc/quoting/contracts';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { AssetRegistry } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import { TASK_CREATION_STREAM, taskCreationDecider, type CreationIntent } from '../../domain/task-creation';
import type { TaskCreatedEventData, TaskRecord, TaskState } from '../../domain/task';
import { TaskStore } from '../task-store';

export interface CreateTaskCommand {
  readonly principal: Pick<Principal, 'accountId' | 'connectionId'>;
  readonly idempotencyKey: string;
  readonly quoteId: string;
  /** Already trimmed; null when absent. */
  readonly title: string | null;
}

export interface CreateTaskResult {
  readonly task: TaskRecord;
  /** Highest position this call appended, if it appended anything. */
  readonly position?: bigint;
}

/** Refusals that end a creation for good (its intent records them); anything else is retried. */
const FINAL_CODES = new Set(['NOT_FOUND', 'QUOTE_EXPIRED', 'QUOTE_ALREADY_USED', 'INSUFFICIENT_FUNDS', 'CONFLICT', 'VALIDATION_ERROR']);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export const creationIdOf = (accountId: string, idempotencyKey: string): string => sha256(`${accountId}\n${idempotencyKey}`);
export const bodyHashOf = (quoteId: string, title: string | null): string => sha256(JSON.stringify({ quote_id: quoteId, title }));

const maxPos = (a: bigint | undefined, b: bigint | undefined): bigint | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/**
 * POST /v1/tasks. Three streams change: the quote (QuoteAccepted), the wallet
 * (FundsReserved) and the task (TaskCreated). They cannot change atomically, so:
 *
 * 1. The intent is recorded first on `taskcreation-<sha256(account, key)>` (no_stream: one
 *    intent and one task id per key, bound to the body).
 * 2. The steps are idempotent per task id: lock the quote, reserve max_amount, create the
 *    task. Any executor (the request, a retry with the same key, the recovery) can run
 *    them again and they converge.
 * 3. The task stream's first event decides the outcome: `TaskCreated` or
 *    `TaskCreationRejected`, both appended with no_stream, so exactly one wins. A rejected
 *    creation is rolled back (quote lock released, reservation released or voided; both
 *    leave tombstones so a slow executor cannot re-lock or re-reserve for that task id),
 *    then `TaskCreationRolledBack` closes it.
 *
 * A crash anywhere leaves an intent without an outcome; `CreationRecovery` finishes it.
 */
@Injectable()
export class CreateTaskHandler {
  private readonly logger = new Logger('TaskCreation');

  constructor(
    private readonly tasks: TaskStore,
    private readonly quotes: QuoteBook,
    private readonly wallet: WalletCommands,
    private readonly assets: AssetRegistry,
    private readonly voices: VoiceRegistry,
  ) {}

  async execute(cmd: CreateTaskCommand): Promise<CreateTaskResult> {
    const { accountId, connectionId } = cmd.principal;
    const creationId = creationIdOf(accountId, cmd.idempotencyKey);
    const bodyHash = bodyHashOf(cmd.quoteId, cmd.title);
    const stream = streamName(TASK_CREATION_STREAM, creationId);
    const existing = await this.intentOf(stream);
    if (existing) return this.resume(existing, bodyHash);
    // A new key: refuse what cannot succeed now without recording anything. (A concurrent
    // request with the same key may have locked the quote meanwhile: then follow its intent.)
    try {
      const quote = await this.quotes.usable(cmd.quoteId, accountId);
      await this.checkReferences(quote);
      const wallet = await this.wallet.view(accountId);
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
      idempotency_key: cmd.idempotencyKey,
      body_hash: bodyHash,
      quote_id: cmd.quoteId,
      title: cmd.title,
      requested_at: this.tasks.now().toISOString(),
    };
    // A concurrent request with the same key may win: then its intent (same body) is driven.
    const recorded = await handleCommand(this.tasks.events, stream, taskCreationDecider, { type: 'RequestCreation', intent }, { retries: 20 });
    const result = await this.drive(recorded.state.intent!);
    return { task: result.task, position: maxPos(result.position, recorded.position) };
  }

  private async intentOf(stream: string): Promise<CreationIntent | null> {
    return (await loadAggregate(this.tasks.events, stream, taskCreationDecider)).state.intent;
  }

  private resume(intent: CreationIntent, bodyHash: string): Promise<CreateTaskResult> {
    if (intent.body_hash !== bodyHash) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used with a different body; use a new key for a new task');
    }
    return this.drive(intent);
  }

  /**
   * Runs (or finishes) a creation. Returns the task, or throws the creation's refusal.
   * Safe to run concurrently and repeatedly for one intent.
   */
  async drive(intent: CreationIntent): Promise<CreateTaskResult> {
    const state = await this.tasks.load(intent.task_id);
    if (state.kind === 'task') return { task: state.task };
    if (state.kind === 'rejected') return this.rollBack(intent, state);

    let position: bigint | undefined;
    let quote: LockedQuote;
    try {
      const accepted = await this.quotes.accept(intent.quote_id, intent.account_id, intent.task_id);
      quote = accepted.quote;
      position = accepted.position;
      const reserved = await this.wallet.reserve({
        accountId: intent.account_id,
        reservationId: intent.task_id,
        taskId: intent.task_id,
        amount: quote.maxAmount,
      });
      position = maxPos(position, reserved.position);
    } catch (err) {
      if (err instanceof AppError && FINAL_CODES.has(err.code)) return this.reject(intent, err);
      throw err;
    }
    try {
      const created = await this.tasks.handle(intent.task_id, { type: 'CreateTask', data: taskCreatedData(intent, quote, this.tasks.now()) });
      if (created.state.kind !== 'task') throw new Error('task creation produced no task');
      return { task: created.state.task, position: maxPos(position, created.position) };
    } catch (err) {
      if (err instanceof AppError && err.code === 'CONFLICT') {
        const now = await this.tasks.load(intent.task_id);
        if (now.kind === 'rejected') return this.rollBack(intent, now);
        if (now.kind === 'task') return { task: now.task, position };
      }
      throw err;
    }
  }

  private async reject(intent: CreationIntent, reason: AppError): Promise<CreateTaskResult> {
    let state: TaskState;
    try {
      state = (
        await this.tasks.handle(intent.task_id, {
          type: 'RejectCreation',
          taskId: intent.task_id,
          accountId: intent.account_id,
          code: reason.code === 'CONFLICT' ? 'QUOTE_ALREADY_USED' : reason.code,
          message: reason.message,
          now: this.tasks.now(),
        })
      ).state;
    } catch (err) {
      // Another executor created the task meanwhile: that outcome stands.
      if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
      state = await this.tasks.load(intent.task_id);
      if (state.kind === 'task') return { task: state.task };
      throw err;
    }
    if (state.kind !== 'rejected') throw new Error('rejection produced no rejected state');
    return this.rollBack(intent, state);
  }

  /** Gives back whatever the rejected creation may hold, then closes it; throws its refusal. */
  private async rollBack(intent: CreationIntent, state: Extract<TaskState, { kind: 'rejected' }>): Promise<never> {
    if (!state.rolledBack) {
      await this.quotes.release(intent.quote_id, intent.task_id);
      await this.wallet.release({ accountId: intent.account_id, reservationId: intent.task_id });
      await this.tasks.handle(intent.task_id, { type: 'RollBackCreation', taskId: intent.task_id, accountId: intent.account_id, now: this.tasks.now() });
      this.logger.log(`task creation ${intent.task_id} rolled back (${state.code})`);
    }
    throw new AppError(state.code as AppError['code'], state.message);
  }

  /** Assets and voices named by the quote must still be usable (deleted meanwhile → 400). */
  private async checkReferences(quote: LockedQuote): Promise<void> {
    if (quote.assetIds.length) await this.assets.requireUsable(quote.accountId, quote.assetIds, 'input.asset_ids');
    if (quote.voiceId) await this.voices.requireUsable(quote.accountId, quote.voiceId, quote.supplier);
  }
}

function insufficient(available: string, needed: bigint): AppError {
  return new AppError('INSUFFICIENT_FUNDS', `available funds ${available} CNY are less than the required ${Money.format(needed)} CNY`);
}

export function taskCreatedData(intent: CreationIntent, quote: LockedQuote, now: Date): TaskCreatedEventData {
  return {
    task_id: intent.task_id,
    bill_id: `bill_${intent.task_id.slice('task_'.length)}`,
    account_id: intent.account_id,
    connection_id: intent.connection_id,
    quote_id: quote.quoteId,
    model: quote.model,
    resolved_model: quote.resolvedModel,
    capability: quote.capability,
    modality: quote.modality,
    title: intent.title,
    price_version: quote.priceVersion,
    currency: 'CNY',
    estimated_amount: Money.format(quote.estimatedAmount),
    max_amount: Money.format(quote.maxAmount),
    params: quote.params,
    asset_ids: [...quote.assetIds],
    voice_id: quote.voiceId,
    created_at: now.toISOString(),
  };
}
