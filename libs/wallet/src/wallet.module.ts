import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/shared';
import { WalletCommands } from './contracts/wallet-commands';
import { WalletController } from './api/wallet.controller';
import { WalletProjection } from './application/wallet.projection';
import { WalletService } from './application/wallet.service';

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
      providers: [WalletService, { provide: WalletCommands, useExisting: WalletService }, WalletProjection],
      exports: [WalletCommands],
    };
  }
}
