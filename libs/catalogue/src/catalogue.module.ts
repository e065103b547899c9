import { Module, type DynamicModule } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { EventStore } from '@gensvc/event-sourcing';
import { type ModuleDependencies } from '@gensvc/http';
import { Catalogue } from './domain/catalogue';
import { CatalogueController } from './api/catalogue.controller';
import { DiffCatalogueHandler } from './application/diff-catalogue/diff-catalogue.handler';
import { GetModelHandler } from './application/get-model/get-model.handler';
import { ListCapabilitiesHandler } from './application/list-capabilities/list-capabilities.handler';
import { ListModelsHandler } from './application/list-models/list-models.handler';
import { ListPricesHandler } from './application/list-prices/list-prices.handler';
import { CatalogueFollower } from './application/live-catalogue/catalogue-follower';
import { openCatalogue } from './application/live-catalogue/open-catalogue';
import { PublishCatalogueHandler } from './application/publish-catalogue/publish-catalogue.handler';
import { ShowCatalogueHandler } from './application/show-catalogue/show-catalogue.handler';

/**
 * Catalogue context: the published catalogue (stream `catalogue-main`, one event per
 * version), served by the one `Catalogue` instance other contexts inject: the start file is
 * published when due and the version in service loaded before anything that injects it is
 * built; `CatalogueFollower` swaps newer versions in. Imports: the storage module.
 */
@Module({})
export class CatalogueModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: CatalogueModule,
      imports: deps.imports,
      controllers: [CatalogueController],
      providers: [
        { provide: Catalogue, useFactory: (events: EventStore, clock: Clock) => openCatalogue(events, clock), inject: [EventStore, Clock] },
        CatalogueFollower,
        PublishCatalogueHandler,
        ShowCatalogueHandler,
        DiffCatalogueHandler,
        ListModelsHandler,
        GetModelHandler,
        ListCapabilitiesHandler,
        ListPricesHandler,
      ],
      // The operator's use cases, for the admin CLI.
      exports: [Catalogue, PublishCatalogueHandler, ShowCatalogueHandler, DiffCatalogueHandler],
    };
  }
}
