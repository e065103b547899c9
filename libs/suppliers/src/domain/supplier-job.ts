import type { Command, Decider } from '@gensvc/shared';
import type { SupplierJobEvent, SupplierJobOutput, SupplierJobQueuedData } from '../contracts/supplier-gateway';

/**
 * The supplier job of one task (stream `supplierjob-<task_id>`):
 *
 *   queued ──dispatch──▶ dispatched ──▶ succeeded | failed | canceled
 *      └──cancel──▶ canceled (at once: no supplier holds it)
 *
 * A cancel of a dispatched job records SupplierCancelChecking; the supplier's answer then
 * records SupplierJobCanceled, SupplierCancelRefused or SupplierCancelUnconfirmed. A job
 * that finishes while the cancellation is being checked records SupplierCancelRefused
 * first (the work was done, the cancellation did not take), then its outcome.
 * Every terminal state is final: later commands decide nothing (idempotent repeats, and
 * the loser of a race between cancel and completion).
 */
export type LocalBehavior = NonNullable<SupplierJobQueuedData['local_behavior']>;

export interface JobInfo {
  readonly taskId: string;
  readonly accountId: string;
  readonly supplier: string;
  readonly model: string;
  readonly capability: string;
  readonly params: Record<string, unknown>;
  readonly queuedAt: string;
  readonly deadlineAt: string | null;
  readonly localBehavior: LocalBehavior;
}

export type CancelState = 'none' | 'checking' | 'refused' | 'unconfirmed';

export type SupplierJobState =
  | { readonly status: 'none' }
  | { readonly status: 'queued'; readonly job: JobInfo }
  | {
      readonly status: 'dispatched';
      readonly job: JobInfo;
      readonly dispatchedAt: string;
      readonly cancel: CancelState;
      readonly cancelCheckingAt: string | null;
    }
  | {
      readonly status: 'succeeded' | 'failed' | 'canceled';
      readonly taskId: string;
      readonly accountId: string;
      /** Absent for a cancellation recorded before the job was ever submitted. */
      readonly job: JobInfo | null;
    };

export type JobError = { readonly code: string; readonly message: string };

export type SupplierJobCommand =
  | Command<
      'QueueJob',
      {
        readonly task_id: string;
        readonly account_id: string;
        readonly supplier: string;
        readonly model: string;
        readonly capability: string;
        readonly params: Record<string, unknown>;
        readonly deadline_at: string;
        readonly local_behavior?: LocalBehavior;
      }
    >
  | Command<'DispatchJob', Record<string, never>>
  | Command<'CompleteJob', { readonly output: SupplierJobOutput }>
  | Command<'FailJob', { readonly error: JobError }>
  /** `task_id`/`account_id` are used only when the job was never submitted (a tombstone). */
  | Command<'RequestCancel', { readonly task_id: string; readonly account_id: string }>
  | Command<'ResolveCancel', { readonly outcome: 'canceled' | 'refused' | 'unconfirmed' }>;

export const isTerminal = (s: SupplierJobState): s is Extract<SupplierJobState, { status: 'succeeded' | 'failed' | 'canceled' }> =>
  s.status === 'succeeded' || s.status === 'failed' || s.status === 'canceled';

function ids(s: SupplierJobState): { task_id: string; account_id: string } {
  switch (s.status) {
    case 'none':
      throw new Error('supplier job does not exist');
    case 'queued':
    case 'dispatched':
      return { task_id: s.job.taskId, account_id: s.job.accountId };
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return { task_id: s.taskId, account_id: s.accountId };
    default: {
      const never: never = s;
      throw new Error(`unknown state ${JSON.stringify(never)}`);
    }
  }
}

export function decide(command: SupplierJobCommand, state: SupplierJobState): SupplierJobEvent[] {
  const now = command.metadata.now.toISOString();
  switch (command.type) {
    case 'QueueJob': {
      if (state.status !== 'none') return [];
      return [
        {
          type: 'SupplierJobQueued',
          data: {
            task_id: command.data.task_id,
            account_id: command.data.account_id,
            supplier: command.data.supplier,
            at: now,
            model: command.data.model,
            capability: command.data.capability,
            params: command.data.params,
            deadline_at: command.data.deadline_at,
            ...(command.data.local_behavior && Object.keys(command.data.local_behavior).length ? { local_behavior: command.data.local_behavior } : {}),
          },
        },
      ];
    }
    case 'DispatchJob':
      if (state.status !== 'queued') return [];
      return [{ type: 'SupplierJobDispatched', data: { ...ids(state), at: now } }];
    case 'CompleteJob': {
      if (state.status === 'queued') {
        return [
          { type: 'SupplierJobDispatched', data: { ...ids(state), at: now } },
          { type: 'SupplierJobSucceeded', data: { ...ids(state), output: command.data.output, at: now } },
        ];
      }
      if (state.status !== 'dispatched') return [];
      return [...refuseOpenCheck(state, now), { type: 'SupplierJobSucceeded', data: { ...ids(state), output: command.data.output, at: now } }];
    }
    case 'FailJob': {
      if (state.status === 'queued') return [{ type: 'SupplierJobFailed', data: { ...ids(state), error: command.data.error, at: now } }];
      if (state.status !== 'dispatched') return [];
      return [...refuseOpenCheck(state, now), { type: 'SupplierJobFailed', data: { ...ids(state), error: command.data.error, at: now } }];
    }
    case 'RequestCancel':
      switch (state.status) {
        case 'none':
          return [{ type: 'SupplierJobCanceled', data: { task_id: command.data.task_id, account_id: command.data.account_id, at: now } }];
        case 'queued':
          return [{ type: 'SupplierJobCanceled', data: { ...ids(state), at: now } }];
        case 'dispatched':
          return state.cancel === 'none' ? [{ type: 'SupplierCancelChecking', data: { ...ids(state), at: now } }] : [];
        default:
          return [];
      }
    case 'ResolveCancel': {
      if (state.status !== 'dispatched') return [];
      const data = { ...ids(state), at: now };
      if (command.data.outcome === 'canceled') return state.cancel === 'none' ? [] : [{ type: 'SupplierJobCanceled', data }];
      if (state.cancel !== 'checking') return [];
      return command.data.outcome === 'refused' ? [{ type: 'SupplierCancelRefused', data }] : [{ type: 'SupplierCancelUnconfirmed', data }];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

function refuseOpenCheck(state: Extract<SupplierJobState, { status: 'dispatched' }>, now: string): SupplierJobEvent[] {
  return state.cancel === 'checking' ? [{ type: 'SupplierCancelRefused', data: { ...ids(state), at: now } }] : [];
}

export function evolve(state: SupplierJobState, event: SupplierJobEvent): SupplierJobState {
  switch (event.type) {
    case 'SupplierJobQueued': {
      const d = event.data;
      return {
        status: 'queued',
        job: {
          taskId: d.task_id,
          accountId: d.account_id,
          supplier: d.supplier,
          model: d.model ?? '',
          capability: d.capability ?? '',
          params: d.params ?? {},
          queuedAt: d.at,
          deadlineAt: d.deadline_at ?? null,
          localBehavior: d.local_behavior ?? {},
        },
      };
    }
    case 'SupplierJobDispatched':
      if (state.status !== 'queued') return state;
      return { status: 'dispatched', job: state.job, dispatchedAt: event.data.at, cancel: 'none', cancelCheckingAt: null };
    case 'SupplierCancelChecking':
      if (state.status !== 'dispatched') return state;
      return { ...state, cancel: 'checking', cancelCheckingAt: event.data.at };
    case 'SupplierCancelRefused':
      if (state.status !== 'dispatched') return state;
      return { ...state, cancel: 'refused' };
    case 'SupplierCancelUnconfirmed':
      if (state.status !== 'dispatched') return state;
      return { ...state, cancel: 'unconfirmed' };
    case 'SupplierJobSucceeded':
    case 'SupplierJobFailed':
    case 'SupplierJobCanceled': {
      if (isTerminal(state)) return state;
      const status = event.type === 'SupplierJobSucceeded' ? 'succeeded' : event.type === 'SupplierJobFailed' ? 'failed' : 'canceled';
      const job = state.status === 'none' ? null : state.job;
      return { status, taskId: event.data.task_id, accountId: event.data.account_id, job };
    }
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

export const supplierJobDecider: Decider<SupplierJobState, SupplierJobCommand, SupplierJobEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
