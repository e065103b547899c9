import { Global, Module } from '@nestjs/common';
import { WalletCommands } from './contracts/wallet-commands';
import { WalletController } from './api/wallet.controller';
import { WalletProjection } from './application/get-wallet/wallet.projection';
import { WalletService } from './application/wallet-stream';

/**
 * Wallet context: the per-account wallet aggregate (credits, reservations, captures,
 * releases), its read model and GET /v1/wallet. Global: other contexts (tasks, the identity
 * context's `account create --credit`, the admin CLI) use `WalletCommands`.
 */
@Global()
@Module({
  controllers: [WalletController],
  providers: [WalletService, { provide: WalletCommands, useExisting: WalletService }, WalletProjection],
  exports: [WalletCommands],
})
export class WalletModule {}
