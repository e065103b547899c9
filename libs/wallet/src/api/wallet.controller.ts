import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, OpenApiOperations, type Principal, ReadStore, RequireScope } from '@gensvc/shared';
import type { WalletView } from '../contracts/wallet-commands';
import { walletView } from '../application/wallet-stream';
import { WALLETS, type WalletDoc } from '../application/get-wallet/wallet.projection';
import { WALLET_OPENAPI } from './wallet.openapi';

@Controller('v1/wallet')
@OpenApiOperations(WALLET_OPENAPI)
export class WalletController {
  constructor(private readonly readStore: ReadStore) {}

  /** Exactly `{currency, balance, reserved, available}`; zeros before the first credit. */
  @Get()
  @RequireScope('read')
  async get(@CurrentPrincipal() principal: Principal): Promise<WalletView> {
    const doc = await this.readStore.collection<WalletDoc & { _id: string }>(WALLETS).findOne({ _id: principal.accountId });
    return walletView({ available: BigInt(doc?.available ?? '0'), reserved: BigInt(doc?.reserved ?? '0') });
  }
}
