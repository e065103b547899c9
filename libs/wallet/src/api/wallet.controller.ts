import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope } from '@gensvc/http';
import type { WalletView } from '../contracts/wallet-commands';
import { GetWalletHandler } from '../application/get-wallet/get-wallet.handler';
import { WALLET_OPENAPI } from './wallet.openapi';

@Controller('v1/wallet')
@OpenApiOperations(WALLET_OPENAPI)
export class WalletController {
  constructor(private readonly getWallet: GetWalletHandler) {}

  /** Exactly `{currency, balance, reserved, available}`; zeros before the first credit. */
  @Get()
  @RequireScope('read')
  get(@CurrentPrincipal() principal: Principal): Promise<WalletView> {
    return this.getWallet.execute({ account_id: principal.accountId });
  }
}
