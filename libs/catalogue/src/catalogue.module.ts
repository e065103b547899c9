import { Module } from '@nestjs/common';
import { Catalogue } from './domain/catalogue';
import { CatalogueController } from './api/catalogue.controller';

/**
 * Catalogue context: the versioned model and price file, loaded and validated at start. It
 * needs no other module; contexts that read the catalogue import this one (`Catalogue`).
 */
@Module({
  controllers: [CatalogueController],
  providers: [{ provide: Catalogue, useFactory: () => Catalogue.load() }],
  exports: [Catalogue],
})
export class CatalogueModule {}
