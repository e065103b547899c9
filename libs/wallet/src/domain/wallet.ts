import { AppError, Money, type Command, type Decider, type Micros } from '@gensvc/kernel';
import { Reservations } from './reservations';

/**
 * The wallet of one account (stream `wallet-<account_id>`): the consistency boundary of its
 * money. `balance = available + reserved`; nothing is ever negative; a reservation is made
 * once and closed once, by exactly one FundsCaptured, FundsReleased or FundsReservationVoided.
 *
 * Amounts in events are CNY strings with six decimals (`^\d+\.\d{6}$`).
 */
export const WALLET_STREAM = 'wallet';

export type WalletEvent =
  | { type: 'FundsCredited'; data: { account_id: string; amount: string; reason: string | null; at: string } }
  | { type: 'FundsReserved'; data: { account_id: string; reservation_id: string; task_id: string; amount: string; at: string } }
  /**
   * Settles a reservation with a charge: `amount` leaves `reserved` and the balance for good,
   * `released_amount` (the rest of the reservation) returns to `available`. Closes it.
   */
  | {
      type: 'FundsCaptured';
      data: { account_id: string; reservation_id: string; task_id: string; amount: string; released_amount: string; at: string };
    }
  /** Returns the whole reservation from `reserved` to `available`. Closes it. */
  | { type: 'FundsReleased'; data: { account_id: string; reservation_id: string; task_id: string; amount: string; at: string } }
  /**
   * Closes a reservation id that was never reserved (a task creation that was rolled back),
   * so it can never be reserved afterwards. Moves no money.
   */
  | { type: 'FundsReservationVoided'; data: { account_id: string; reservation_id: string; at: string } };

export type WalletEventType = WalletEvent['type'];
export const WALLET_EVENT_TYPES: readonly WalletEventType[] = [
  'FundsCredited',
  'FundsReserved',
  'FundsCaptured',
  'FundsReleased',
  'FundsReservationVoided',
];

export type WalletCommand =
  | Command<'Credit', { readonly account_id: string; readonly amount: Micros; readonly reason?: string | null }>
  | Command<'Reserve', { readonly account_id: string; readonly reservation_id: string; readonly task_id: string; readonly amount: Micros }>
  /** Charges `amount` (at most the reserved amount) and releases the rest. */
  | Command<'Capture', { readonly account_id: string; readonly reservation_id: string; readonly amount: Micros }>
  /** Releases the whole reservation; voids an id never reserved. */
  | Command<'Release', { readonly account_id: string; readonly reservation_id: string }>;

export interface WalletState {
  readonly available: Micros;
  readonly reserved: Micros;
  /** Sum of all captured amounts. */
  readonly spent: Micros;
  /** Sum of all credits. Conservation: credited = available + reserved + spent. */
  readonly credited: Micros;
  /** Every reservation id seen: open, or closed (captured, released, voided) for good. */
  readonly reservations: Reservations;
}

export const walletBalance = (s: Pick<WalletState, 'available' | 'reserved'>): Micros => s.available + s.reserved;

const initialState = (): WalletState => ({
  available: 0n,
  reserved: 0n,
  spent: 0n,
  credited: 0n,
  reservations: Reservations.empty(),
});

function evolve(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'FundsCredited': {
      const amount = Money.parse(event.data.amount);
      return { ...state, available: state.available + amount, credited: state.credited + amount };
    }
    case 'FundsReserved': {
      const amount = Money.parse(event.data.amount);
      if (state.reservations.get(event.data.reservation_id)) return state;
      return {
        ...state,
        available: state.available - amount,
        reserved: state.reserved + amount,
        reservations: state.reservations.openReservation(event.data.reservation_id, event.data.task_id, amount),
      };
    }
    case 'FundsCaptured': {
      const r = state.reservations.get(event.data.reservation_id);
      if (r?.status !== 'open') return state;
      const charged = Money.parse(event.data.amount);
      const released = r.amount - charged;
      return {
        ...state,
        available: state.available + released,
        reserved: state.reserved - r.amount,
        spent: state.spent + charged,
        reservations: state.reservations.close(event.data.reservation_id, charged, released),
      };
    }
    case 'FundsReleased': {
      const r = state.reservations.get(event.data.reservation_id);
      if (r?.status !== 'open') return state;
      return {
        ...state,
        available: state.available + r.amount,
        reserved: state.reserved - r.amount,
        reservations: state.reservations.close(event.data.reservation_id, 0n, r.amount),
      };
    }
    case 'FundsReservationVoided':
      if (state.reservations.get(event.data.reservation_id)) return state;
      return { ...state, reservations: state.reservations.void(event.data.reservation_id) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(command: WalletCommand, state: WalletState): WalletEvent[] {
  const at = command.metadata.now.toISOString();
  const { account_id } = command.data;
  switch (command.type) {
    case 'Credit': {
      if (command.data.amount <= 0n) throw new AppError('VALIDATION_ERROR', 'amount: must be greater than 0');
      return [{ type: 'FundsCredited', data: { account_id, amount: Money.format(command.data.amount), reason: command.data.reason ?? null, at } }];
    }
    case 'Reserve': {
      if (command.data.amount <= 0n) throw new AppError('VALIDATION_ERROR', 'amount: must be greater than 0');
      const existing = state.reservations.get(command.data.reservation_id);
      if (existing?.status === 'open') {
        if (existing.amount === command.data.amount) return [];
        throw new AppError('CONFLICT', `reservation ${command.data.reservation_id} exists with another amount`);
      }
      if (existing) throw new AppError('CONFLICT', `reservation ${command.data.reservation_id} is already closed`);
      if (state.available < command.data.amount) {
        throw new AppError(
          'INSUFFICIENT_FUNDS',
          `available funds ${Money.format(state.available)} CNY are less than the required ${Money.format(command.data.amount)} CNY`,
        );
      }
      return [
        {
          type: 'FundsReserved',
          data: { account_id, reservation_id: command.data.reservation_id, task_id: command.data.task_id, amount: Money.format(command.data.amount), at },
        },
      ];
    }
    case 'Capture': {
      const r = state.reservations.get(command.data.reservation_id);
      if (!r) throw new AppError('NOT_FOUND', `reservation ${command.data.reservation_id} not found`);
      if (r.status === 'closed') return [];
      if (command.data.amount < 0n || command.data.amount > r.amount) {
        throw new AppError('VALIDATION_ERROR', `capture of ${Money.format(command.data.amount)} exceeds the reserved ${Money.format(r.amount)}`);
      }
      return [
        {
          type: 'FundsCaptured',
          data: {
            account_id,
            reservation_id: command.data.reservation_id,
            task_id: r.taskId,
            amount: Money.format(command.data.amount),
            released_amount: Money.format(r.amount - command.data.amount),
            at,
          },
        },
      ];
    }
    case 'Release': {
      const r = state.reservations.get(command.data.reservation_id);
      if (r?.status === 'closed') return [];
      if (!r) return [{ type: 'FundsReservationVoided', data: { account_id, reservation_id: command.data.reservation_id, at } }];
      return [{ type: 'FundsReleased', data: { account_id, reservation_id: command.data.reservation_id, task_id: r.taskId, amount: Money.format(r.amount), at } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const walletDecider: Decider<WalletState, WalletCommand, WalletEvent> = { initialState, evolve, decide };
