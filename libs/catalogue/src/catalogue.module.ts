import { Module } from '@nestjs/common';
import { Catalogue } from './domain/catalogue';
import { CatalogueController } from './api/catalogue.controller';
import { GetModelHandler } from './application/get-model/get-model.handler';
import { ListCapabilitiesHandler } from './application/list-capabilities/list-capabilities.handler';
import { ListModelsHandler } from './application/list-models/list-models.handler';
import { ListPricesHandler } from './application/list-prices/list-prices.handler';

/**
 * Catalogue context: the versioned model and price file, loaded and validated at start. It
 * needs no other module; contexts that read the catalogue import this one (`Catalogue`).
 */
@Module({
  controllers: [CatalogueController],
  providers: [{ provide: Catalogue, useFactory: () => Catalogue.load() }, ListModelsHandler, GetModelHandler, ListCapabilitiesHandler, ListPricesHandler],
  exports: [Catalogue],
})
export class CatalogueModule {}
