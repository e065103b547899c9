import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig } from '@gensvc/shared';
import { StorageModule } from '@gensvc/storage';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';
import { WalletModule } from '@gensvc/wallet';
import { AssetsModule } from '@gensvc/assets';
import { QuotingModule } from '@gensvc/quoting';
import { SuppliersModule } from '@gensvc/suppliers';
import { TasksModule } from '@gensvc/tasks';
import { VoicesModule } from '@gensvc/voices';
import { NotificationsModule } from '@gensvc/notifications';

/**
 * The admin CLI's application: the same context modules as the API (so a replay rebuilds every
 * projection), no HTTP and no subscriptions; background jobs run only where the subscriptions
 * run, so none starts here.
 */
@Module({})
export class AdminModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AdminModule,
      imports: [
        StorageModule.forRoot(config),
        CqrsModule.forRoot(),
        CatalogueModule,
        IdentityModule,
        OperationsModule.forRoot(),
        AssetsModule.forRoot(),
        VoicesModule,
        SuppliersModule,
        WalletModule,
        QuotingModule,
        TasksModule,
        NotificationsModule,
      ],
    };
  }
}
