import type { Command, Decider } from '@gensvc/kernel';
import type { SupplierJobEvent, SupplierJobOutput, SupplierJobQueuedData } from '../contracts/supplier-gateway';
import { afterAttempt, routeKey, type RouteTries } from './route-failover';

/**
 * The supplier job of one task (stream `supplierjob-<task_id>`):
 *
 *   queued ──dispatch──▶ dispatched ──▶ succeeded | failed | canceled
 *      └──cancel──▶ canceled (at once: no supplier holds it)
 *
 * On a provider route a queued job is first marked `submitting` (the create request is
 * about to go out); `NotTaken` clears the mark when the provider answered without taking
 * the job. A job found `submitting` after a crash or a lost answer may exist at the
 * provider: it is dispatched only by what the provider says, never by sending again.
 * What each route did with the job (attempts, when to try it again, whether it is spent) is
 * folded from `NotTaken` (`route-failover.ts`), so failover survives restarts and hand-overs.
 * A cancel of a queued job that is `submitting` cancels it here; the channel then cancels
 * at the provider whatever the submit created.
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

/** A create request that is out (or was, before a crash) to a provider route. */
export interface Submitting {
  readonly channel: string;
  readonly route: number;
  /** When it went out. */
  readonly since: string;
}

/** The provider job that runs a dispatched job. */
export interface RemoteJob {
  readonly channel: string;
  readonly route: number;
  readonly supplierModel: string;
  readonly remoteId: string;
}

export type CancelState = 'none' | 'checking' | 'refused' | 'unconfirmed';

export type SupplierJobState =
  | { readonly status: 'none' }
  | {
      readonly status: 'queued';
      readonly job: JobInfo;
      readonly submitting: Submitting | null;
      /** What each provider route did with the job, by `routeKey`. */
      readonly routes: Readonly<Record<string, RouteTries>>;
    }
  | {
      readonly status: 'dispatched';
      readonly job: JobInfo;
      readonly dispatchedAt: string;
      /** Which provider route holds it (absent on the local supplier and gensvc channels). */
      readonly remote: RemoteJob | null;
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
  | Command<'BeginSubmit', { readonly channel: string; readonly route: number }>
  /**
   * The route being sent the job did not take it: `retry_after_ms` is the provider's
   * `Retry-After`; `route_unusable`, the route cannot run the job at all (404: an unknown model).
   */
  | Command<'SubmitNotTaken', { readonly route: number; readonly reason: string; readonly retry_after_ms?: number; readonly route_unusable?: boolean }>
  /** The route cannot be sent the job (its input mapping failed, the voice is another channel's): try the next. */
  | Command<'SkipRoute', { readonly channel: string; readonly route: number; readonly reason: string }>
  | Command<
      'DispatchJob',
      { readonly channel?: string; readonly route?: number; readonly supplier_model?: string; readonly remote_id?: string; readonly unit_cost?: string }
    >
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
    case 'BeginSubmit':
      if (state.status !== 'queued' || state.submitting) return [];
      return [{ type: 'SupplierJobSubmitting', data: { ...ids(state), channel: command.data.channel, route: command.data.route, at: now } }];
    case 'SubmitNotTaken': {
      if (state.status !== 'queued' || state.submitting?.route !== command.data.route) return [];
      const { channel, route, since } = state.submitting;
      const { retryAt, spent } = afterAttempt(state.job.taskId, state.routes[routeKey(channel, route)], since, command.metadata.now, {
        retryAfterMs: command.data.retry_after_ms,
        unusable: command.data.route_unusable,
      });
      return [notTaken(state, channel, route, command.data.reason, now, spent ? { route_spent: true } : { retry_at: retryAt! })];
    }
    case 'SkipRoute': {
      const { channel, route } = command.data;
      if (state.status !== 'queued' || (state.submitting && (state.submitting.channel !== channel || state.submitting.route !== route))) return [];
      if (state.routes[routeKey(channel, route)]?.spent) return [];
      return [notTaken(state, channel, route, command.data.reason, now, { route_spent: true })];
    }
    case 'DispatchJob': {
      if (state.status !== 'queued') return [];
      const d = command.data;
      const remote =
        d.remote_id !== undefined && d.channel !== undefined && d.route !== undefined
          ? { channel: d.channel, route: d.route, supplier_model: d.supplier_model ?? '', remote_id: d.remote_id, ...(d.unit_cost ? { unit_cost: d.unit_cost } : {}) }
          : {};
      return [{ type: 'SupplierJobDispatched', data: { ...ids(state), at: now, ...remote } }];
    }
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

function notTaken(
  state: SupplierJobState,
  channel: string,
  route: number,
  reason: string,
  at: string,
  next: { retry_at: string } | { route_spent: true },
): SupplierJobEvent {
  return { type: 'SupplierJobNotTaken', data: { ...ids(state), channel, route, reason, at, ...next } };
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
        submitting: null,
        routes: {},
      };
    }
    case 'SupplierJobSubmitting':
      if (state.status !== 'queued') return state;
      return { ...state, submitting: { channel: event.data.channel, route: event.data.route, since: event.data.at } };
    case 'SupplierJobNotTaken': {
      if (state.status !== 'queued') return state;
      const d = event.data;
      const key = routeKey(d.channel, d.route);
      const previous = state.routes[key];
      const tries: RouteTries = {
        attempts: (previous?.attempts ?? 0) + 1,
        since: previous?.since ?? state.submitting?.since ?? d.at,
        retryAt: d.retry_at ?? null,
        spent: d.route_spent === true,
      };
      return { ...state, submitting: null, routes: { ...state.routes, [key]: tries } };
    }
    case 'SupplierJobDispatched': {
      if (state.status !== 'queued') return state;
      const d = event.data;
      const remote =
        d.remote_id !== undefined && d.channel !== undefined && d.route !== undefined
          ? { channel: d.channel, route: d.route, supplierModel: d.supplier_model ?? '', remoteId: d.remote_id }
          : null;
      return { status: 'dispatched', job: state.job, dispatchedAt: d.at, remote, cancel: 'none', cancelCheckingAt: null };
    }
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
