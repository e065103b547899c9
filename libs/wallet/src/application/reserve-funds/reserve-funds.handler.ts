import { Injectable } from '@nestjs/common';
import { AppError, type Command, type Micros } from '@gensvc/kernel';
import type { ReservationResult } from '../../contracts/wallet-commands';
import { WalletStream } from '../wallet-stream';

/** Moves `amount` from available to reserved under `reservation_id` (the task id). */
export type ReserveFundsCommand = Command<
  'ReserveFunds',
  { readonly account_id: string; readonly reservation_id: string; readonly task_id: string; readonly amount: Micros }
>;

const refusal = (err: AppError) => ({ reserved: false as const, refusal: { code: err.code, message: err.message } });

/**
 * FundsReserved, idempotent per reservation id. The decider's typed refusal
 * (INSUFFICIENT_FUNDS, CONFLICT for a closed id) becomes the answer, with nothing reserved;
 * anything else (I/O) is thrown.
 */
@Injectable()
export class ReserveFundsHandler {
  constructor(private readonly wallets: WalletStream) {}

  async execute(cmd: ReserveFundsCommand): Promise<ReservationResult> {
    try {
      const { position } = await this.wallets.handle(cmd.data.account_id, { type: 'Reserve', data: cmd.data, metadata: cmd.metadata });
      return { reserved: true, position };
    } catch (err) {
      if (err instanceof AppError) return refusal(err);
      throw err;
    }
  }
}
