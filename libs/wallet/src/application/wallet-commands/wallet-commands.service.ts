import { Injectable } from '@nestjs/common';
import { Clock, type Micros } from '@gensvc/kernel';
import { WalletCommands, type ReservationOutcome, type ReservationResult, type WalletView } from '../../contracts/wallet-commands';
import { CaptureFundsHandler } from '../capture-funds/capture-funds.handler';
import { CreditFundsHandler } from '../credit-funds/credit-funds.handler';
import { CurrentWalletHandler } from '../current-wallet/current-wallet.handler';
import { ReleaseFundsHandler } from '../release-funds/release-funds.handler';
import { ReserveFundsHandler, type ReserveFundsCommand } from '../reserve-funds/reserve-funds.handler';

/** The wallet context's port for other contexts and the admin CLI: each call is one use case's handler, timed by the clock. */
@Injectable()
export class WalletCommandsService extends WalletCommands {
  constructor(
    private readonly clock: Clock,
    private readonly creditFunds: CreditFundsHandler,
    private readonly currentWallet: CurrentWalletHandler,
    private readonly reserveFunds: ReserveFundsHandler,
    private readonly captureFunds: CaptureFundsHandler,
    private readonly releaseFunds: ReleaseFundsHandler,
  ) {
    super();
  }

  override credit(accountId: string, amount: string, reason?: string): Promise<WalletView> {
    return this.creditFunds.execute({ type: 'CreditFunds', data: { account_id: accountId, amount, reason: reason ?? null }, metadata: this.metadata() });
  }

  override view(accountId: string, options: { includeInFlight?: boolean } = {}): Promise<WalletView> {
    return this.currentWallet.execute({ account_id: accountId, include_in_flight: options.includeInFlight });
  }

  override reserve(r: { accountId: string; reservationId: string; taskId: string; amount: Micros }): Promise<ReservationResult> {
    return this.reserveFunds.execute(this.reservation(r));
  }

  override capture(r: { accountId: string; reservationId: string; amount: Micros }): Promise<ReservationOutcome> {
    return this.captureFunds.execute({ type: 'CaptureFunds', data: { account_id: r.accountId, reservation_id: r.reservationId, amount: r.amount }, metadata: this.metadata() });
  }

  override release(r: { accountId: string; reservationId: string }): Promise<ReservationOutcome> {
    return this.releaseFunds.execute({ type: 'ReleaseFunds', data: { account_id: r.accountId, reservation_id: r.reservationId }, metadata: this.metadata() });
  }

  private reservation(r: { accountId: string; reservationId: string; taskId: string; amount: Micros }): ReserveFundsCommand {
    return { type: 'ReserveFunds', data: { account_id: r.accountId, reservation_id: r.reservationId, task_id: r.taskId, amount: r.amount }, metadata: this.metadata() };
  }

  private metadata(): { now: Date } {
    return { now: this.clock.now() };
  }
}
