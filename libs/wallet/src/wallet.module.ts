import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
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
 * releases), its read model and GET /v1/wallet. Imports: the storage module. Other contexts
 * (tasks, the admin CLI's `account create --credit`) use `WalletCommands` by importing it.
 */
@Module({})
export class WalletModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: WalletModule,
      imports: deps.imports,
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
    };
  }
}
