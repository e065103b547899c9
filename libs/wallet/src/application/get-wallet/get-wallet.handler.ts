import { Injectable } from '@nestjs/common';
import { ReadStore } from '@gensvc/event-sourcing';
import type { WalletView } from '../../contracts/wallet-commands';
import { walletView } from '../wallet-stream';
import { WALLETS, type WalletDoc } from './wallet.projection';

export interface GetWalletQuery {
  readonly account_id: string;
}

/** GET /v1/wallet: the wallet read model; zeros before the first credit. */
@Injectable()
export class GetWalletHandler {
  constructor(private readonly readStore: ReadStore) {}

  async execute(query: GetWalletQuery): Promise<WalletView> {
    const doc = await this.readStore.collection<WalletDoc & { _id: string }>(WALLETS).findOne({ _id: query.account_id });
    return walletView({ available: BigInt(doc?.available ?? '0'), reserved: BigInt(doc?.reserved ?? '0') });
  }
}
