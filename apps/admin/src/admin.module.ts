import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig } from '@gensvc/config';
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
 * projection), composed the same way (no global module; see apps/api/src/app.module.ts), with
 * no HTTP, no shared counters and no subscriptions; background jobs run only where the
 * subscriptions run, so none starts here.
 */
@Module({})
export class AdminModule {
  static forRoot(config: AppConfig): DynamicModule {
    const storage = StorageModule.forRoot(config);
    const catalogue = CatalogueModule.register({ imports: [storage] });
    const identity = IdentityModule.register({ imports: [storage] });
    const wallet = WalletModule.register({ imports: [storage] });
    const voices = VoicesModule.register({ imports: [storage, catalogue] });
    const assets = AssetsModule.register({ imports: [storage, identity] });
    const quoting = QuotingModule.register({ imports: [storage, catalogue, assets, voices] });
    const suppliers = SuppliersModule.register({ imports: [storage, catalogue, assets, voices] });
    const tasks = TasksModule.register({ imports: [storage, assets, voices, quoting, suppliers, wallet] });
    return {
      module: AdminModule,
      imports: [
        storage,
        CqrsModule.forRoot(),
        catalogue,
        identity,
        OperationsModule.register({ imports: [storage] }),
        assets,
        voices,
        suppliers,
        wallet,
        quoting,
        tasks,
        NotificationsModule.register({ imports: [storage] }),
      ],
    };
  }
}
