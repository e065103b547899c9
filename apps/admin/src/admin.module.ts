import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig, StorageModule } from '@gensvc/shared';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';
import { WalletModule } from '@gensvc/wallet';

/** The admin CLI's application: the same context modules as the API, no HTTP, no subscriptions. */
@Module({})
export class AdminModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AdminModule,
      imports: [StorageModule.forRoot(config), CqrsModule.forRoot(), CatalogueModule, IdentityModule, WalletModule, OperationsModule.forRoot()],
    };
  }
}
