import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, EventStore, type HandleResult } from '@gensvc/event-sourcing';
import { Money, streamName } from '@gensvc/kernel';
import type { ReservationOutcome, WalletView } from '../contracts/wallet-commands';
import { WALLET_STREAM, walletBalance, walletDecider, type WalletCommand, type WalletEvent, type WalletState } from '../domain/wallet';

/**
 * The wallet streams (`wallet-<account_id>`) through the kernel's `CommandHandler`, shared by
 * every wallet use case of the process: each command reads the wallet stream, decides and
 * appends with the expected revision (another process may write the same wallet: the admin
 * CLI credits while the server reserves); on a conflict it reads on and decides again.
 * Commands on one wallet are serialized inside the process, and the folded state is cached
 * per wallet, so a command reads only the events appended since (a wallet has one or more
 * events per task). One instance per process, so that serialization and cache hold.
 */
@Injectable()
export class WalletStream {
  private readonly commands: CommandHandler<WalletState, WalletCommand, WalletEvent>;

  constructor(@Inject(EventStore) events: EventStore) {
    this.commands = new CommandHandler(events, walletDecider);
  }

  handle(accountId: string, command: WalletCommand): Promise<HandleResult<WalletState, WalletEvent>> {
    return this.commands.handle(streamName(WALLET_STREAM, accountId), command);
  }

  /** The wallet as committed, or (`includeInFlight`) with this process's appends still in flight. */
  async load(accountId: string, includeInFlight = false): Promise<WalletState> {
    const stream = streamName(WALLET_STREAM, accountId);
    return (includeInFlight ? await this.commands.peek(stream) : await this.commands.load(stream)).state;
  }
}

export const walletView = (s: Pick<WalletState, 'available' | 'reserved'>): WalletView => ({
  currency: 'CNY',
  balance: Money.format(walletBalance(s)),
  reserved: Money.format(s.reserved),
  available: Money.format(s.available),
});

/** What a capture or release did to the reservation: the event written, or the outcome of the closed reservation (a repeat). */
export function reservationOutcome(result: HandleResult<WalletState, WalletEvent>, reservationId: string): ReservationOutcome {
  const { state, events, position } = result;
  const e = events[0];
  if (e?.type === 'FundsCaptured') return { charged: Money.parse(e.data.amount), released: Money.parse(e.data.released_amount), position };
  if (e?.type === 'FundsReleased') return { charged: 0n, released: Money.parse(e.data.amount), position };
  const r = state.reservations.get(reservationId);
  if (r?.status === 'closed') return { charged: r.charged, released: r.released, position };
  return { charged: 0n, released: 0n, position };
}
