import { Inject, Injectable } from '@nestjs/common';
import { AppError, Clock, CommandHandler, EventStore, Money, streamName, type Micros } from '@gensvc/shared';
import { WalletCommands, type QueuedReservation, type ReservationOutcome, type ReservationResult, type WalletView } from '../contracts/wallet-commands';
import { WALLET_STREAM, walletBalance, walletDecider, type WalletCommand, type WalletEvent, type WalletState } from '../domain/wallet';

export const walletView = (s: Pick<WalletState, 'available' | 'reserved'>): WalletView => ({
  currency: 'CNY',
  balance: Money.format(walletBalance(s)),
  reserved: Money.format(s.reserved),
  available: Money.format(s.available),
});

const reservation = (r: { accountId: string; reservationId: string; taskId: string; amount: Micros }) => ({
  account_id: r.accountId,
  reservation_id: r.reservationId,
  task_id: r.taskId,
  amount: r.amount,
});

/** Parses a CNY amount given by an operator or caller; VALIDATION_ERROR naming `field`. */
export function parseAmount(text: string, field = 'amount'): Micros {
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(text)) throw new AppError('VALIDATION_ERROR', `${field}: must be a CNY amount with at most 6 decimals, e.g. 100.00`);
  return Money.parse(text);
}

/**
 * The wallet's command side, through the kernel's `CommandHandler`: each command reads the
 * wallet stream, decides and appends with the expected revision (another process may write
 * the same wallet: the admin CLI credits while the server reserves); on a conflict it reads on
 * and decides again. Commands on one wallet are serialized inside the process, and the folded
 * state is cached per wallet, so a command reads only the events appended since (a wallet has
 * one or more events per task).
 */
@Injectable()
export class WalletService extends WalletCommands {
  private readonly commands: CommandHandler<WalletState, WalletCommand, WalletEvent>;

  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly clock: Clock,
  ) {
    super();
    this.commands = new CommandHandler(events, walletDecider);
  }

  override async credit(accountId: string, amount: string, reason?: string): Promise<WalletView> {
    const micros = parseAmount(amount);
    const { state } = await this.handle(accountId, { type: 'Credit', data: { account_id: accountId, amount: micros, reason: reason ?? null }, metadata: { now: this.clock.now() } });
    return walletView(state);
  }

  override async view(accountId: string, options: { includeInFlight?: boolean } = {}): Promise<WalletView> {
    const stream = streamName(WALLET_STREAM, accountId);
    const { state } = options.includeInFlight ? await this.commands.peek(stream) : await this.commands.load(stream);
    return walletView(state);
  }

  override async reserve(r: { accountId: string; reservationId: string; taskId: string; amount: Micros }): Promise<ReservationResult> {
    try {
      const { position } = await this.handle(r.accountId, { type: 'Reserve', data: reservation(r), metadata: { now: this.clock.now() } });
      return { reserved: true, position };
    } catch (err) {
      // The decider's typed refusal becomes the answer; anything else (I/O) is thrown.
      if (err instanceof AppError) return { reserved: false, refusal: { code: err.code, message: err.message } };
      throw err;
    }
  }

  override async beginReserve({ after, ...r }: { accountId: string; reservationId: string; taskId: string; amount: Micros; after: readonly string[] }): Promise<QueuedReservation> {
    try {
      const started = await this.commands.start(streamName(WALLET_STREAM, r.accountId), { type: 'Reserve', data: reservation(r), metadata: { now: this.clock.now() } }, { after });
      return { reserved: true, eventId: started.lastEventId, committed: started.committed.then((x) => ({ position: x?.position })) };
    } catch (err) {
      if (err instanceof AppError) return { reserved: false, refusal: { code: err.code, message: err.message } };
      throw err;
    }
  }

  override async capture(r: { accountId: string; reservationId: string; amount: Micros }): Promise<ReservationOutcome> {
    return this.settle(r.accountId, r.reservationId, {
      type: 'Capture',
      data: { account_id: r.accountId, reservation_id: r.reservationId, amount: r.amount },
      metadata: { now: this.clock.now() },
    });
  }

  override async release(r: { accountId: string; reservationId: string }): Promise<ReservationOutcome> {
    return this.settle(r.accountId, r.reservationId, { type: 'Release', data: { account_id: r.accountId, reservation_id: r.reservationId }, metadata: { now: this.clock.now() } });
  }

  private async settle(accountId: string, reservationId: string, command: WalletCommand): Promise<ReservationOutcome> {
    const { state, events, position } = await this.handle(accountId, command);
    const e = events[0];
    if (e?.type === 'FundsCaptured') return { charged: Money.parse(e.data.amount), released: Money.parse(e.data.released_amount), position };
    if (e?.type === 'FundsReleased') return { charged: 0n, released: Money.parse(e.data.amount), position };
    const r = state.reservations.get(reservationId);
    if (r?.status === 'closed') return { charged: r.charged, released: r.released, position };
    return { charged: 0n, released: 0n, position };
  }

  private handle(accountId: string, command: WalletCommand) {
    return this.commands.handle(streamName(WALLET_STREAM, accountId), command);
  }
}
