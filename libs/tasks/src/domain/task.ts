import { AppError, type Command, type Decider } from '@gensvc/kernel';
import type { TaskCreatedData, TaskOutput } from '../contracts/task-events';

/**
 * A task (stream `task-<task_id>`). Its first event decides the creation: `TaskCreated`, or
 * `TaskCreationRejected` when a half-done creation had to be undone (then
 * `TaskCreationRolledBack` once the quote lock and the reservation are given back). Both are
 * appended with `no_stream`, so exactly one of them wins.
 *
 * Status: queued → running → succeeded | failed | canceled; nothing leaves a terminal status.
 * Cancellation (sub-state): none → requested → checking → confirmed | refused | unconfirmed;
 * a request overtaken by completion ends `not_needed`.
 * Settlement: reserved → settled (charged, rest released) | released (nothing charged).
 */
export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export type CancellationStatus = 'none' | 'requested' | 'checking' | 'refused' | 'unconfirmed' | 'confirmed' | 'not_needed';
export type SettlementStatus = 'reserved' | 'settled' | 'released';

export const TERMINAL: readonly TaskStatus[] = ['succeeded', 'failed', 'canceled'];
export const isTerminal = (s: TaskStatus): boolean => TERMINAL.includes(s);

export interface Cancellation {
  readonly status: CancellationStatus;
  readonly requested_at: string | null;
  readonly error_code: string | null;
}

/** TaskCreated as this context writes it: the contract's fields plus the bill id. */
export interface TaskCreatedEventData extends TaskCreatedData {
  readonly bill_id: string;
}

type Ref = { task_id: string; account_id: string; at: string };

export type TaskEvent =
  | { type: 'TaskCreated'; data: TaskCreatedEventData }
  | { type: 'TaskCreationRejected'; data: Ref & { code: string; message: string } }
  | { type: 'TaskCreationRolledBack'; data: Ref }
  | { type: 'TaskStarted'; data: Ref }
  | { type: 'TaskSucceeded'; data: Ref & { output: TaskOutput } }
  | { type: 'TaskFailed'; data: Ref & { error: { code: string; message: string } } }
  | { type: 'CancellationRequested'; data: Ref }
  | { type: 'CancellationChecking'; data: Ref }
  | { type: 'CancellationRefused'; data: Ref & { error_code: string } }
  | { type: 'CancellationUnconfirmed'; data: Ref & { error_code: string } }
  | { type: 'CancellationConfirmed'; data: Ref }
  | { type: 'TaskCanceled'; data: Ref }
  | {
      type: 'TaskSettled';
      data: Ref & { settlement_status: 'settled' | 'released'; charged_amount: string; released_amount: string };
    };

export type TaskEventType = TaskEvent['type'];
export const TASK_EVENT_TYPES: readonly TaskEventType[] = [
  'TaskCreated',
  'TaskCreationRejected',
  'TaskCreationRolledBack',
  'TaskStarted',
  'TaskSucceeded',
  'TaskFailed',
  'CancellationRequested',
  'CancellationChecking',
  'CancellationRefused',
  'CancellationUnconfirmed',
  'CancellationConfirmed',
  'TaskCanceled',
  'TaskSettled',
];

export const CANCEL_REFUSED = 'CANCEL_REFUSED';
export const CANCEL_UNCONFIRMED = 'CANCEL_UNCONFIRMED';

export interface TaskRecord extends TaskCreatedEventData {
  readonly status: TaskStatus;
  readonly cancellation: Cancellation;
  readonly output: TaskOutput | null;
  readonly error: { code: string; message: string } | null;
  readonly updated_at: string;
  readonly completed_at: string | null;
  readonly settlement_status: SettlementStatus;
  readonly charged_amount: string | null;
  readonly released_amount: string | null;
  readonly settled_at: string | null;
}

export type TaskState =
  | { readonly kind: 'none' }
  | { readonly kind: 'rejected'; readonly task_id: string; readonly code: string; readonly message: string; readonly rolledBack: boolean }
  | { readonly kind: 'task'; readonly task: TaskRecord };

/** Every command: `{ type, data, metadata: { now } }` (time arrives with the command). */
type Cmd<T extends string, D> = Command<T, D>;
type TaskRef = { readonly task_id: string };

export type TaskCommand =
  | Cmd<'CreateTask', TaskCreatedEventData>
  | Cmd<'RejectCreation', TaskRef & { readonly account_id: string; readonly code: string; readonly message: string }>
  | Cmd<'RollBackCreation', TaskRef & { readonly account_id: string }>
  | Cmd<'StartTask', TaskRef>
  | Cmd<'SucceedTask', TaskRef & { readonly output: TaskOutput }>
  | Cmd<'FailTask', TaskRef & { readonly error: { readonly code: string; readonly message: string } }>
  | Cmd<'RequestCancellation', TaskRef>
  | Cmd<'MarkCancellationChecking', TaskRef>
  | Cmd<'MarkCancellationRefused', TaskRef>
  | Cmd<'MarkCancellationUnconfirmed', TaskRef>
  /** The supplier did not and will not do the work. */
  | Cmd<'ConfirmCancellation', TaskRef>
  | Cmd<
      'SettleTask',
      TaskRef & { readonly settlement_status: 'settled' | 'released'; readonly charged_amount: string; readonly released_amount: string }
    >;

const initialState = (): TaskState => ({ kind: 'none' });

const NO_CANCELLATION: Cancellation = { status: 'none', requested_at: null, error_code: null };

/** A pending cancellation overtaken by the task's own end. */
const overtaken = (c: Cancellation): Cancellation =>
  c.status === 'requested' || c.status === 'checking' ? { ...c, status: 'not_needed', error_code: null } : c;

function evolve(state: TaskState, event: TaskEvent): TaskState {
  if (event.type === 'TaskCreated') {
    const d = event.data;
    return {
      kind: 'task',
      task: {
        ...d,
        status: 'queued',
        cancellation: NO_CANCELLATION,
        output: null,
        error: null,
        updated_at: d.created_at,
        completed_at: null,
        settlement_status: 'reserved',
        charged_amount: null,
        released_amount: null,
        settled_at: null,
      },
    };
  }
  if (event.type === 'TaskCreationRejected') {
    return { kind: 'rejected', task_id: event.data.task_id, code: event.data.code, message: event.data.message, rolledBack: false };
  }
  if (event.type === 'TaskCreationRolledBack') return state.kind === 'rejected' ? { ...state, rolledBack: true } : state;
  if (state.kind !== 'task') return state;
  const t = state.task;
  const at = event.data.at;
  const next = (patch: Partial<TaskRecord>): TaskState => ({ kind: 'task', task: { ...t, ...patch, updated_at: at } });
  switch (event.type) {
    case 'TaskStarted':
      return next({ status: 'running' });
    case 'TaskSucceeded':
      return next({ status: 'succeeded', output: event.data.output, completed_at: at, cancellation: overtaken(t.cancellation) });
    case 'TaskFailed':
      return next({ status: 'failed', error: event.data.error, completed_at: at, cancellation: overtaken(t.cancellation) });
    case 'CancellationRequested':
      return next({ cancellation: { status: 'requested', requested_at: at, error_code: null } });
    case 'CancellationChecking':
      return next({ cancellation: { ...t.cancellation, status: 'checking' } });
    case 'CancellationRefused':
      return next({ cancellation: { ...t.cancellation, status: 'refused', error_code: event.data.error_code } });
    case 'CancellationUnconfirmed':
      return next({ cancellation: { ...t.cancellation, status: 'unconfirmed', error_code: event.data.error_code } });
    case 'CancellationConfirmed':
      return next({ cancellation: { ...t.cancellation, status: 'confirmed', error_code: null } });
    case 'TaskCanceled':
      return next({ status: 'canceled', completed_at: at });
    case 'TaskSettled':
      return next({
        settlement_status: event.data.settlement_status,
        charged_amount: event.data.charged_amount,
        released_amount: event.data.released_amount,
        settled_at: at,
      });
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(command: TaskCommand, state: TaskState): TaskEvent[] {
  const at = command.metadata.now.toISOString();
  // The task stream's first event decides a creation: whichever of TaskCreated and
  // TaskCreationRejected is there stands, and the other command changes nothing (the caller
  // reads the outcome from the state).
  switch (command.type) {
    case 'CreateTask':
      return state.kind === 'none' ? [{ type: 'TaskCreated', data: command.data }] : [];
    case 'RejectCreation': {
      if (state.kind !== 'none') return [];
      const { task_id, account_id, code, message } = command.data;
      return [{ type: 'TaskCreationRejected', data: { task_id, account_id, code, message, at } }];
    }
    case 'RollBackCreation':
      if (state.kind !== 'rejected' || state.rolledBack) return [];
      return [{ type: 'TaskCreationRolledBack', data: { task_id: command.data.task_id, account_id: command.data.account_id, at } }];
    default:
      break;
  }
  // A command for a task that does not exist changes nothing (the caller sees the state).
  if (state.kind !== 'task') return [];
  const t = state.task;
  const ref: Ref = { task_id: t.task_id, account_id: t.account_id, at };
  const done = isTerminal(t.status);
  const c = t.cancellation.status;
  switch (command.type) {
    case 'StartTask':
      return t.status === 'queued' ? [{ type: 'TaskStarted', data: ref }] : [];
    case 'SucceedTask':
      return done ? [] : [{ type: 'TaskSucceeded', data: { ...ref, output: command.data.output } }];
    case 'FailTask':
      return done ? [] : [{ type: 'TaskFailed', data: { ...ref, error: command.data.error } }];
    case 'RequestCancellation':
      // Only a task without a cancellation asks; repeats (and finished tasks) change nothing.
      return !done && c === 'none' ? [{ type: 'CancellationRequested', data: ref }] : [];
    case 'MarkCancellationChecking':
      return !done && c === 'requested' ? [{ type: 'CancellationChecking', data: ref }] : [];
    case 'MarkCancellationRefused':
      return !done && (c === 'requested' || c === 'checking') ? [{ type: 'CancellationRefused', data: { ...ref, error_code: CANCEL_REFUSED } }] : [];
    case 'MarkCancellationUnconfirmed':
      return !done && (c === 'requested' || c === 'checking')
        ? [{ type: 'CancellationUnconfirmed', data: { ...ref, error_code: CANCEL_UNCONFIRMED } }]
        : [];
    case 'ConfirmCancellation':
      return done ? [] : [{ type: 'CancellationConfirmed', data: ref }, { type: 'TaskCanceled', data: ref }];
    case 'SettleTask': {
      if (!done || t.settlement_status !== 'reserved') return [];
      const expected = t.status === 'succeeded' ? 'settled' : 'released';
      const { settlement_status, charged_amount, released_amount } = command.data;
      if (settlement_status !== expected) throw new AppError('CONFLICT', `a ${t.status} task settles as ${expected}, not ${settlement_status}`);
      return [{ type: 'TaskSettled', data: { ...ref, settlement_status, charged_amount, released_amount } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const taskDecider: Decider<TaskState, TaskCommand, TaskEvent> = { initialState, evolve, decide };
