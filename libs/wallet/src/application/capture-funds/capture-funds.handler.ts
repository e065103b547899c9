import { Injectable } from '@nestjs/common';
import type { Command, Micros } from '@gensvc/kernel';
import type { ReservationOutcome } from '../../contracts/wallet-commands';
import { WalletStream, reservationOutcome } from '../wallet-stream';

/** Charges `amount` (at most the reserved amount) and releases the rest of the reservation. */
export type CaptureFundsCommand = Command<'CaptureFunds', { readonly account_id: string; readonly reservation_id: string; readonly amount: Micros }>;

/** FundsCaptured. Idempotent: a closed reservation answers its outcome. */
@Injectable()
export class CaptureFundsHandler {
  constructor(private readonly wallets: WalletStream) {}

  async execute(cmd: CaptureFundsCommand): Promise<ReservationOutcome> {
    const result = await this.wallets.handle(cmd.data.account_id, { type: 'Capture', data: cmd.data, metadata: cmd.metadata });
    return reservationOutcome(result, cmd.data.reservation_id);
  }
}
