import { Money, type Workflow } from '@gensvc/kernel';
import type { LockedQuote } from '@gensvc/quoting/contracts';
import type { CreationIntent } from './task-creation';
import type { TaskCreatedEventData } from './task';

/**
 * Task creation as a pure workflow: quote accepted → funds reserved → task created, with
 * every refusal path. Three streams change (the quote, the wallet, the task) and cannot
 * change atomically, so each step is idempotent per task id, and the task stream's first
 * event decides the outcome (`TaskCreated` or `TaskCreationRejected`, both with no_stream).
 * A rejected creation gives back the quote lock and the reservation, then is closed
 * (`TaskCreationRolledBack`).
 *
 * Inputs are the creation's intent, the outcomes of the commands it sent, and the task
 * stream's events. After a crash a runner resumes from what is stored: the intent and the
 * task stream (nothing, `TaskCreated`, `TaskCreationRejected`, `TaskCreationRolledBack`);
 * from the intent alone the workflow sends its idempotent steps again, which converge.
 */
export type CreationInput =
  | { readonly type: 'TaskCreationRequested'; readonly data: CreationIntent }
  | { readonly type: 'QuoteLocked'; readonly data: { readonly task_id: string; readonly quote: LockedQuote } }
  | { readonly type: 'QuoteRefused'; readonly data: Refusal }
  | { readonly type: 'FundsReserved'; readonly data: { readonly task_id: string; readonly at: string } }
  | { readonly type: 'FundsRefused'; readonly data: Refusal }
  | { readonly type: 'TaskCreated'; readonly data: TaskCreatedEventData }
  | { readonly type: 'TaskCreationRejected'; readonly data: Refusal }
  | { readonly type: 'TaskCreationRolledBack'; readonly data: { readonly task_id: string } };

export interface Refusal {
  readonly task_id: string;
  readonly code: string;
  readonly message: string;
}

export type CreationCommand =
  | { readonly type: 'AcceptQuote'; readonly data: { readonly quote_id: string; readonly account_id: string; readonly task_id: string } }
  | {
      readonly type: 'ReserveFunds';
      readonly data: { readonly account_id: string; readonly reservation_id: string; readonly task_id: string; readonly amount: bigint };
    }
  | { readonly type: 'CreateTask'; readonly data: TaskCreatedEventData }
  | { readonly type: 'RejectCreation'; readonly data: Refusal & { readonly account_id: string } }
  | { readonly type: 'ReleaseQuote'; readonly data: { readonly quote_id: string; readonly task_id: string } }
  | { readonly type: 'ReleaseFunds'; readonly data: { readonly account_id: string; readonly reservation_id: string } }
  | { readonly type: 'RollBackCreation'; readonly data: { readonly task_id: string; readonly account_id: string } };

export type CreationState =
  | { readonly status: 'none' }
  | { readonly status: 'requested'; readonly intent: CreationIntent }
  | { readonly status: 'quote_locked'; readonly intent: CreationIntent; readonly quote: LockedQuote }
  | { readonly status: 'created'; readonly intent: CreationIntent | null; readonly task: TaskCreatedEventData }
  | { readonly status: 'rejected'; readonly intent: CreationIntent | null; readonly refusal: Refusal }
  | { readonly status: 'rolled_back'; readonly intent: CreationIntent | null; readonly refusal: Refusal | null };

const intentOf = (s: CreationState): CreationIntent | null => (s.status === 'none' ? null : s.intent);

function evolve(state: CreationState, input: CreationInput): CreationState {
  // The task stream's outcome is final whatever was seen before it.
  if (state.status === 'created' || state.status === 'rolled_back') return state;
  switch (input.type) {
    case 'TaskCreationRequested':
      return state.status === 'none' ? { status: 'requested', intent: input.data } : state;
    case 'QuoteLocked':
      return state.status === 'requested' ? { status: 'quote_locked', intent: state.intent, quote: input.data.quote } : state;
    case 'FundsReserved':
    case 'QuoteRefused':
    case 'FundsRefused':
      return state; // answered by a command on the task stream, whose outcome is the next input
    case 'TaskCreated':
      return { status: 'created', intent: intentOf(state), task: input.data };
    case 'TaskCreationRejected':
      return state.status === 'rejected' ? state : { status: 'rejected', intent: intentOf(state), refusal: input.data };
    case 'TaskCreationRolledBack':
      return { status: 'rolled_back', intent: intentOf(state), refusal: state.status === 'rejected' ? state.refusal : null };
    default: {
      const never: never = input;
      return never;
    }
  }
}

function decide(input: CreationInput, state: CreationState): readonly CreationCommand[] {
  switch (state.status) {
    case 'none':
    case 'created':
    case 'rolled_back':
      return [];
    case 'requested': {
      const i = state.intent;
      if (input.type === 'TaskCreationRequested') return [{ type: 'AcceptQuote', data: { quote_id: i.quote_id, account_id: i.account_id, task_id: i.task_id } }];
      if (input.type === 'QuoteRefused') return [reject(i, input.data)];
      return [];
    }
    case 'quote_locked': {
      const i = state.intent;
      if (input.type === 'QuoteLocked') {
        return [{ type: 'ReserveFunds', data: { account_id: i.account_id, reservation_id: i.task_id, task_id: i.task_id, amount: state.quote.maxAmount } }];
      }
      if (input.type === 'FundsReserved') return [{ type: 'CreateTask', data: taskCreatedData(i, state.quote, input.data.at) }];
      if (input.type === 'FundsRefused') return [reject(i, input.data)];
      return [];
    }
    case 'rejected': {
      if (input.type !== 'TaskCreationRejected') return [];
      const i = state.intent;
      if (!i) return [];
      // Give back whatever the creation may hold (both are idempotent and leave tombstones, so
      // a slow executor cannot lock or reserve again for this task id), then close it.
      return [
        { type: 'ReleaseQuote', data: { quote_id: i.quote_id, task_id: i.task_id } },
        { type: 'ReleaseFunds', data: { account_id: i.account_id, reservation_id: i.task_id } },
        { type: 'RollBackCreation', data: { task_id: i.task_id, account_id: i.account_id } },
      ];
    }
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** A refused step rejects the creation (a reservation id already closed reads as a used quote). */
function reject(intent: CreationIntent, refusal: Refusal): CreationCommand {
  const code = refusal.code === 'CONFLICT' ? 'QUOTE_ALREADY_USED' : refusal.code;
  return { type: 'RejectCreation', data: { task_id: intent.task_id, account_id: intent.account_id, code, message: refusal.message } };
}

export function taskCreatedData(intent: CreationIntent, quote: LockedQuote, at: string): TaskCreatedEventData {
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
    quantity: quote.quantity,
    unit: quote.unit,
    currency: 'CNY',
    estimated_amount: Money.format(quote.estimatedAmount),
    max_amount: Money.format(quote.maxAmount),
    params: quote.params,
    asset_ids: [...quote.assetIds],
    voice_id: quote.voiceId,
    created_at: at,
  };
}

export const taskCreationWorkflow: Workflow<CreationInput, CreationState, CreationCommand> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
