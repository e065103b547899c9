import { AppError, Money, type Decider, type Micros } from '@gensvc/shared';

/**
 * The wallet of one account (stream `wallet-<account_id>`): the consistency boundary of its
 * money. `balance = available + reserved`; nothing is ever negative; a reservation is made
 * once and closed once (captured, released or voided).
 *
 * Amounts in events are CNY strings with six decimals (`^\d+\.\d{6}$`).
 */
export const WALLET_STREAM = 'wallet';

export type WalletEvent =
  | { type: 'FundsCredited'; data: { account_id: string; amount: string; reason: string | null; at: string } }
  | { type: 'FundsReserved'; data: { account_id: string; reservation_id: string; task_id: string; amount: string; at: string } }
  /** Charged for good: leaves `reserved` and the balance. */
  | { type: 'FundsCaptured'; data: { account_id: string; reservation_id: string; task_id: string; amount: string; at: string } }
  /** Returned from `reserved` to `available`. */
  | { type: 'FundsReleased'; data: { account_id: string; reservation_id: string; task_id: string; amount: string; at: string } }
  /**
   * A reservation id closed before it was ever made (a task creation that was rolled back):
   * it can never be reserved afterwards. Moves no money.
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
  | { type: 'Credit'; accountId: string; amount: Micros; reason?: string | null; now: Date }
  | { type: 'Reserve'; accountId: string; reservationId: string; taskId: string; amount: Micros; now: Date }
  /** Charges `amount` (at most the reserved amount) and releases the rest. */
  | { type: 'Capture'; accountId: string; reservationId: string; amount: Micros; now: Date }
  /** Releases the whole reservation; voids an id never reserved. */
  | { type: 'Release'; accountId: string; reservationId: string; now: Date };

export interface OpenReservation {
  readonly taskId: string;
  readonly amount: Micros;
}

export interface WalletState {
  readonly available: Micros;
  readonly reserved: Micros;
  /** Sum of all captured amounts. */
  readonly spent: Micros;
  /** Sum of all credits. Conservation: credited = available + reserved + spent. */
  readonly credited: Micros;
  readonly open: ReadonlyMap<string, OpenReservation>;
  /** Reservation ids that are captured, released or voided: never reserved again. */
  readonly closed: ReadonlySet<string>;
}

export const walletBalance = (s: Pick<WalletState, 'available' | 'reserved'>): Micros => s.available + s.reserved;

const initialState = (): WalletState => ({
  available: 0n,
  reserved: 0n,
  spent: 0n,
  credited: 0n,
  open: new Map(),
  closed: new Set(),
});

function withoutOpen(state: WalletState, id: string): Pick<WalletState, 'open' | 'closed'> {
  const open = new Map(state.open);
  open.delete(id);
  const closed = new Set(state.closed);
  closed.add(id);
  return { open, closed };
}

function evolve(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'FundsCredited': {
      const amount = Money.parse(event.data.amount);
      return { ...state, available: state.available + amount, credited: state.credited + amount };
    }
    case 'FundsReserved': {
      const amount = Money.parse(event.data.amount);
      const open = new Map(state.open);
      open.set(event.data.reservation_id, { taskId: event.data.task_id, amount });
      return { ...state, available: state.available - amount, reserved: state.reserved + amount, open };
    }
    case 'FundsCaptured': {
      // A capture below the reserved amount is appended together with the release of the
      // rest, which closes the reservation.
      const amount = Money.parse(event.data.amount);
      const r = state.open.get(event.data.reservation_id);
      if (!r) return state;
      const rest = r.amount - amount;
      const moved = { reserved: state.reserved - amount, spent: state.spent + amount };
      if (rest > 0n) {
        const open = new Map(state.open);
        open.set(event.data.reservation_id, { taskId: r.taskId, amount: rest });
        return { ...state, ...moved, open };
      }
      return { ...state, ...moved, ...withoutOpen(state, event.data.reservation_id) };
    }
    case 'FundsReleased': {
      const amount = Money.parse(event.data.amount);
      if (!state.open.has(event.data.reservation_id)) return state;
      return {
        ...state,
        ...withoutOpen(state, event.data.reservation_id),
        available: state.available + amount,
        reserved: state.reserved - amount,
      };
    }
    case 'FundsReservationVoided': {
      const closed = new Set(state.closed);
      closed.add(event.data.reservation_id);
      return { ...state, closed };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

function decide(command: WalletCommand, state: WalletState): WalletEvent[] {
  const at = command.now.toISOString();
  const account_id = command.accountId;
  switch (command.type) {
    case 'Credit': {
      if (command.amount <= 0n) throw new AppError('VALIDATION_ERROR', 'amount: must be greater than 0');
      return [{ type: 'FundsCredited', data: { account_id, amount: Money.format(command.amount), reason: command.reason ?? null, at } }];
    }
    case 'Reserve': {
      if (command.amount <= 0n) throw new AppError('VALIDATION_ERROR', 'amount: must be greater than 0');
      const existing = state.open.get(command.reservationId);
      if (existing) {
        if (existing.amount === command.amount) return [];
        throw new AppError('CONFLICT', `reservation ${command.reservationId} exists with another amount`);
      }
      if (state.closed.has(command.reservationId)) throw new AppError('CONFLICT', `reservation ${command.reservationId} is already closed`);
      if (state.available < command.amount) {
        throw new AppError(
          'INSUFFICIENT_FUNDS',
          `available funds ${Money.format(state.available)} CNY are less than the required ${Money.format(command.amount)} CNY`,
        );
      }
      return [
        {
          type: 'FundsReserved',
          data: { account_id, reservation_id: command.reservationId, task_id: command.taskId, amount: Money.format(command.amount), at },
        },
      ];
    }
    case 'Capture': {
      if (state.closed.has(command.reservationId)) return [];
      const r = state.open.get(command.reservationId);
      if (!r) throw new AppError('NOT_FOUND', `reservation ${command.reservationId} not found`);
      if (command.amount < 0n || command.amount > r.amount) {
        throw new AppError('VALIDATION_ERROR', `capture of ${Money.format(command.amount)} exceeds the reserved ${Money.format(r.amount)}`);
      }
      const base = { account_id, reservation_id: command.reservationId, task_id: r.taskId, at };
      const events: WalletEvent[] = [{ type: 'FundsCaptured', data: { ...base, amount: Money.format(command.amount) } }];
      const rest = r.amount - command.amount;
      if (rest > 0n) events.push({ type: 'FundsReleased', data: { ...base, amount: Money.format(rest) } });
      return events;
    }
    case 'Release': {
      if (state.closed.has(command.reservationId)) return [];
      const r = state.open.get(command.reservationId);
      if (!r) return [{ type: 'FundsReservationVoided', data: { account_id, reservation_id: command.reservationId, at } }];
      return [{ type: 'FundsReleased', data: { account_id, reservation_id: command.reservationId, task_id: r.taskId, amount: Money.format(r.amount), at } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const walletDecider: Decider<WalletState, WalletCommand, WalletEvent> = { initialState, evolve, decide };
