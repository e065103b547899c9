export { CatalogueModule } from './catalogue.module';
export * from './contracts';
export { PublishCatalogueHandler, type PublishCatalogueCommand, type PublishCatalogueOptions, type PublishCatalogueResult } from './application/publish-catalogue/publish-catalogue.handler';
export { ShowCatalogueHandler, type CatalogueShown, type ShowCatalogueQuery } from './application/show-catalogue/show-catalogue.handler';
export { DiffCatalogueHandler, type DiffCatalogueQuery } from './application/diff-catalogue/diff-catalogue.handler';
export { CatalogueFollower } from './application/live-catalogue/catalogue-follower';
