import { Injectable } from '@nestjs/common';
import type { Command } from '@gensvc/kernel';
import type { ReservationOutcome } from '../../contracts/wallet-commands';
import { WalletStream, reservationOutcome } from '../wallet-stream';

/** Releases the whole reservation; an id never reserved is voided (never reservable after). */
export type ReleaseFundsCommand = Command<'ReleaseFunds', { readonly account_id: string; readonly reservation_id: string }>;

/** FundsReleased (or FundsReservationVoided). Idempotent: a closed reservation answers its outcome. */
@Injectable()
export class ReleaseFundsHandler {
  constructor(private readonly wallets: WalletStream) {}

  async execute(cmd: ReleaseFundsCommand): Promise<ReservationOutcome> {
    const result = await this.wallets.handle(cmd.data.account_id, { type: 'Release', data: cmd.data, metadata: cmd.metadata });
    return reservationOutcome(result, cmd.data.reservation_id);
  }
}
