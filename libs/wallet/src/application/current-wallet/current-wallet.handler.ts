import { Injectable } from '@nestjs/common';
import type { WalletView } from '../../contracts/wallet-commands';
import { WalletStream, walletView } from '../wallet-stream';

export interface CurrentWalletQuery {
  readonly account_id: string;
  /** Also the commands of this process whose events are not stored yet (without waiting for them). */
  readonly include_in_flight?: boolean;
}

/**
 * The wallet folded from its stream: current even without subscriptions running (task
 * creation checks the available funds with it). With `include_in_flight`, a quick look for a
 * check the wallet's own decision repeats.
 */
@Injectable()
export class CurrentWalletHandler {
  constructor(private readonly wallets: WalletStream) {}

  async execute(query: CurrentWalletQuery): Promise<WalletView> {
    return walletView(await this.wallets.load(query.account_id, query.include_in_flight ?? false));
  }
}
