import { Global, Module } from '@nestjs/common';
import { WalletCommands } from './contracts/wallet-commands';
import { WalletController } from './api/wallet.controller';
import { CaptureFundsHandler } from './application/capture-funds/capture-funds.handler';
import { CreditFundsHandler } from './application/credit-funds/credit-funds.handler';
import { CurrentWalletHandler } from './application/current-wallet/current-wallet.handler';
import { GetWalletHandler } from './application/get-wallet/get-wallet.handler';
import { WalletProjection } from './application/get-wallet/wallet.projection';
import { ReleaseFundsHandler } from './application/release-funds/release-funds.handler';
import { ReserveFundsHandler } from './application/reserve-funds/reserve-funds.handler';
import { WalletCommandsService } from './application/wallet-commands/wallet-commands.service';
import { WalletStream } from './application/wallet-stream';

/**
 * Wallet context: the per-account wallet aggregate (credits, reservations, captures,
 * releases), its read model and GET /v1/wallet. Global: other contexts (tasks, the identity
 * context's `account create --credit`, the admin CLI) use `WalletCommands`.
 */
@Global()
@Module({
  controllers: [WalletController],
  providers: [
    WalletStream,
    CreditFundsHandler,
    ReserveFundsHandler,
    CaptureFundsHandler,
    ReleaseFundsHandler,
    CurrentWalletHandler,
    GetWalletHandler,
    WalletProjection,
    WalletCommandsService,
    { provide: WalletCommands, useExisting: WalletCommandsService },
  ],
  exports: [WalletCommands],
})
export class WalletModule {}
