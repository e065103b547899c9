import { Money, type Workflow } from '@gensvc/kernel';

/**
 * Settlement of a finished task with its wallet, as a pure workflow over the task stream's
 * events and the wallet's answers: a succeeded task captures its quote's estimated amount and
 * releases the rest (`settled`); a failed or canceled task releases everything (`released`);
 * the wallet's outcome is then recorded on the task (`TaskSettled`). Both wallet commands are
 * idempotent per reservation (a closed reservation answers its outcome), so a runner that
 * crashed between them, or a second runner, settles once.
 */
export type SettlementInput =
  | { readonly type: 'TaskCreated'; readonly data: { readonly task_id: string; readonly account_id: string; readonly estimated_amount: string } }
  | { readonly type: 'TaskSucceeded' | 'TaskFailed' | 'TaskCanceled'; readonly data: { readonly task_id: string } }
  | { readonly type: 'ReservationClosed'; readonly data: { readonly task_id: string; readonly charged: bigint; readonly released: bigint } }
  | { readonly type: 'TaskSettled'; readonly data: { readonly task_id: string } };

export type SettlementCommand =
  | { readonly type: 'CaptureFunds'; readonly data: { readonly account_id: string; readonly reservation_id: string; readonly amount: bigint } }
  | { readonly type: 'ReleaseFunds'; readonly data: { readonly account_id: string; readonly reservation_id: string } }
  | {
      readonly type: 'SettleTask';
      readonly data: {
        readonly task_id: string;
        readonly settlement_status: 'settled' | 'released';
        readonly charged_amount: string;
        readonly released_amount: string;
      };
    };

interface Reservation {
  readonly task_id: string;
  readonly account_id: string;
  readonly estimated: bigint;
}

export type SettlementState =
  | { readonly status: 'none' }
  | { readonly status: 'reserved'; readonly reservation: Reservation }
  | { readonly status: 'ended'; readonly reservation: Reservation; readonly succeeded: boolean }
  | { readonly status: 'settled' };

function evolve(state: SettlementState, input: SettlementInput): SettlementState {
  if (state.status === 'settled') return state;
  switch (input.type) {
    case 'TaskCreated':
      return state.status === 'none'
        ? { status: 'reserved', reservation: { task_id: input.data.task_id, account_id: input.data.account_id, estimated: Money.parse(input.data.estimated_amount) } }
        : state;
    case 'TaskSucceeded':
    case 'TaskFailed':
    case 'TaskCanceled':
      return state.status === 'reserved' ? { status: 'ended', reservation: state.reservation, succeeded: input.type === 'TaskSucceeded' } : state;
    case 'ReservationClosed':
      return state;
    case 'TaskSettled':
      return { status: 'settled' };
    default: {
      const never: never = input;
      return never;
    }
  }
}

function decide(input: SettlementInput, state: SettlementState): readonly SettlementCommand[] {
  if (state.status !== 'ended') return [];
  const r = state.reservation;
  switch (input.type) {
    case 'TaskSucceeded':
    case 'TaskFailed':
    case 'TaskCanceled':
      // The task's first outcome counts (a late one repeats it: the wallet answers idempotently).
      return state.succeeded
        ? [{ type: 'CaptureFunds', data: { account_id: r.account_id, reservation_id: r.task_id, amount: r.estimated } }]
        : [{ type: 'ReleaseFunds', data: { account_id: r.account_id, reservation_id: r.task_id } }];
    case 'ReservationClosed':
      return [
        {
          type: 'SettleTask',
          data: {
            task_id: r.task_id,
            settlement_status: state.succeeded ? 'settled' : 'released',
            charged_amount: Money.format(input.data.charged),
            released_amount: Money.format(input.data.released),
          },
        },
      ];
    default:
      return [];
  }
}

export const taskSettlementWorkflow: Workflow<SettlementInput, SettlementState, SettlementCommand> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
